import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { makeBackgroundBash } from "../../../src/bash/background.ts"
import { reapOrphans } from "../../../src/bash/containment.ts"
import { runForeground } from "../../../src/bash/foreground.ts"
import { CONTAIN_VAR, instancePrefix, ownStart, processStart } from "../../../src/bash/process-tree.ts"
import { alive, eventually, makeWorkspace, pidsIn, reap, sleep } from "./support.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"

const leftovers = new Set<number>()
afterEach(() => {
  reap(leftovers)
  leftovers.clear()
})

const linux = process.platform === "linux" && spawnSync("setsid", ["--version"]).status === 0
const hasPerl = spawnSync("perl", ["-e", "1"]).status === 0

/** Processes that leave the shell's group, session and tree, each printing its pid. */
const escapees = [
  "setsid -f sh -c 'echo $$; exec sleep 1000'",
  // Double fork: the middle process exits at once, so the sleeper's parent is gone.
  "( (sh -c 'echo $$; exec sleep 1000' &) & )",
  "( (setsid sh -c 'echo $$; exec sleep 1000' &) & )",
  ...(hasPerl ? [`perl -e 'setpgrp(0, 0); print "$$\\n"; exec "sleep", "1000"' &`] : [])
].join("\n")

const track = (pids: ReadonlyArray<number>): ReadonlyArray<number> => {
  pids.forEach((pid) => leftovers.add(pid))
  return pids
}

describe.skipIf(!linux)("containment", () => {
  it("a foreground command's escapees (setsid -f, double fork, setpgrp) die when it exits", async () => {
    const ws = await makeWorkspace()
    const result = await Effect.runPromise(
      runForeground({ secrets: noSecrets, command: `${escapees}\nsleep 0.3; exit 0`, cwd: ws.workspace, timeoutSeconds: 30, graceMs: 300 })
    )
    const pids = track(pidsIn(result.output))
    expect(pids).toHaveLength(hasPerl ? 4 : 3)
    expect(await eventually(() => pids.every((pid) => !alive(pid)), 3000)).toBe(true)
  })

  it("every shell carries its own tag, which its descendants inherit", async () => {
    const ws = await makeWorkspace()
    const run = (command: string) => Effect.runPromise(runForeground({ secrets: noSecrets, command, cwd: ws.workspace, timeoutSeconds: 30 }))
    const first = (await run(`echo $${CONTAIN_VAR}; sh -c 'echo $${CONTAIN_VAR}'`)).output.split("\n")
    const second = (await run(`echo $${CONTAIN_VAR}`)).output.trim()
    expect(first[0]).toMatch(new RegExp(`^${instancePrefix().replaceAll(".", "\\.")}\\d+$`))
    expect(first[1]).toBe(first[0])
    expect(second).not.toBe(first[0])
  })

  it("background escapees die with the session; bash_stop kills only that task's", async () => {
    const ws = await makeWorkspace()
    const [kept, stopped] = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const service = yield* makeBackgroundBash({ timeoutSeconds: null, graceMs: 300 })
          const one = yield* service.start(`${escapees}\nwait; sleep 1000`, { cwd: ws.workspace, secrets: noSecrets })
          const two = yield* service.start(`${escapees}\nwait; sleep 1000`, { cwd: ws.workspace, secrets: noSecrets })
          const expected = hasPerl ? 4 : 3
          const pidsOf = (id: string) => Effect.map(service.logs(id), (slice) => pidsIn(slice.text))
          for (let i = 0; i < 200; i++) {
            const counts = [(yield* pidsOf(one.id)).length, (yield* pidsOf(two.id)).length]
            if (counts.every((count) => count === expected)) break
            yield* Effect.promise(() => sleep(20))
          }
          const first = track(yield* pidsOf(one.id))
          const second = track(yield* pidsOf(two.id))
          expect(first).toHaveLength(expected)
          expect(second).toHaveLength(expected)
          yield* service.stop(one.id)
          expect(first.filter(alive)).toEqual([])
          expect(second.filter(alive)).toEqual(second)
          return [second, first] as const
        })
      )
    )
    expect(kept.filter(alive)).toEqual([])
    expect(stopped.filter(alive)).toEqual([])
  })

  it("reaps what a dead crystal left in its home: only its tagged processes started after it", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "crystal-run-"))
    // A crystal that ran and died: a process that exited, named by its pid and start time.
    const dead = spawn("sh", ["-c", "sleep 0.2"])
    const deadPid = dead.pid!
    const deadStart = processStart(deadPid)!
    await new Promise((resolve) => dead.once("exit", resolve))
    const prefix = instancePrefix(deadPid, deadStart)
    const orphan = spawn("sleep", ["1000"], { env: { ...process.env, [CONTAIN_VAR]: `${prefix}3` }, detached: true, stdio: "ignore" })
    const stranger = spawn("sleep", ["1000"], { env: { ...process.env, [CONTAIN_VAR]: `${deadPid}.${deadStart}0.1` }, detached: true, stdio: "ignore" })
    track([orphan.pid!, stranger.pid!])
    await fs.writeFile(path.join(dir, `${deadPid}.json`), JSON.stringify({ pid: deadPid, start: deadStart, prefix }))
    // A crystal still running (this process) keeps its file and its processes.
    const mine = spawn("sleep", ["1000"], { env: { ...process.env, [CONTAIN_VAR]: `${instancePrefix()}999` }, detached: true, stdio: "ignore" })
    track([mine.pid!])
    await fs.writeFile(path.join(dir, `${process.pid}.json`), JSON.stringify({ pid: process.pid, start: ownStart, prefix: instancePrefix() }))
    // A record whose start is later than the tagged process's: not started by that crystal.
    const early = spawn("sleep", ["1000"], { env: { ...process.env, [CONTAIN_VAR]: "77777.99999999999.1" }, detached: true, stdio: "ignore" })
    track([early.pid!])
    await fs.writeFile(path.join(dir, "77777.json"), JSON.stringify({ pid: 77777, start: "99999999999", prefix: "77777.99999999999." }))
    await fs.writeFile(path.join(dir, "junk.json"), "{not json")
    await sleep(100)

    expect(reapOrphans(dir)).toEqual({ files: 3, killed: 1 })
    expect(await eventually(() => !alive(orphan.pid!))).toBe(true)
    expect([stranger.pid!, mine.pid!, early.pid!].filter(alive)).toHaveLength(3)
    expect((await fs.readdir(dir)).sort()).toEqual([`${process.pid}.json`])
    await fs.rm(dir, { recursive: true, force: true })
  })
})

describe("the pid file's home", () => {
  it("is the one the spawn names: none without a home, the first named home after that, never a second", async () => {
    const ws = await makeWorkspace()
    const [first, second] = [await fs.mkdtemp(path.join(os.tmpdir(), "crystal-home-")), await fs.mkdtemp(path.join(os.tmpdir(), "crystal-home-"))]
    const exists = (home: string) => fs.access(path.join(home, "run", `${process.pid}.json`)).then(() => true, () => false)
    const run = (home: string | undefined) => Effect.runPromise(runForeground({ command: "true", cwd: ws.workspace, timeoutSeconds: 30, secrets: noSecrets, home }))
    await run(undefined)
    expect([await exists(first), await exists(second)]).toEqual([false, false])
    await run(first)
    const record = JSON.parse(await fs.readFile(path.join(first, "run", `${process.pid}.json`), "utf8")) as { readonly pid: number; readonly prefix: string }
    expect(record).toMatchObject({ pid: process.pid, prefix: instancePrefix() })
    await run(second)
    expect(await exists(second)).toBe(false)
    await Promise.all([first, second].map((dir) => fs.rm(dir, { recursive: true, force: true })))
  })
})
