/**
 * The kill tests of foreground.test.ts and background.test.ts, for sandboxed runs: a bwrap sandbox
 * has its own pid namespace, so `$$` and `$!` inside are not host pids; the processes are found
 * from outside instead, by a marker in their command line (`sleep 1000.<n>`), in /proc.
 */
import { spawn } from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import { afterEach, describe, expect, it } from "vitest"
import { makeBackgroundBash } from "../../../src/bash/background.ts"
import { sandboxStatus } from "../../../src/bash/sandbox.ts"
import { makeBashTools } from "../../../src/tools/bash-tools.ts"
import type { ToolContext } from "../../../src/tools/tool.ts"
import { alive, classifyForTest, eventually, makeWorkspace, reap, runTool, type Workspace } from "./support.ts"

const status = sandboxStatus()
const usable = status.available && status.kind === "bwrap"
const skipped = usable ? "" : ` (skipped: ${status.available ? `${status.kind} cannot be tested on this platform` : status.reason})`

const leftovers = new Set<number>()
afterEach(() => {
  reap(leftovers)
  leftovers.clear()
})

/** A `sleep` duration no other process on the machine uses: its command line marks the process. */
const marker = (): string => `1000.${crypto.randomInt(1, 1_000_000_000)}`

/** Living host pids whose command line is `sleep MARK`. */
const sleepers = (mark: string): Array<number> => {
  const found: Array<number> = []
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0")
      if (argv[0]?.endsWith("sleep") === true && argv[1] === mark && alive(Number(name))) found.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  found.forEach((pid) => leftovers.add(pid))
  return found
}

const sandboxed = (ws: Workspace): ToolContext => ({ ...ws.context, spillDir: ws.spillDir, sandbox: "read-only" })

const withTools = <A>(
  options: { readonly bashTimeoutSeconds?: number; readonly graceMs?: number },
  body: (tools: ReturnType<typeof makeBashTools>) => Effect.Effect<A, unknown>
): Promise<A> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const background = yield* makeBackgroundBash({ timeoutSeconds: null, graceMs: options.graceMs ?? 300 })
        const tools = makeBashTools({
          background,
          bashTimeoutSeconds: options.bashTimeoutSeconds ?? 30,
          classifyCommand: classifyForTest,
          graceMs: options.graceMs ?? 300
        })
        return yield* body(tools)
      })
    ) as Effect.Effect<A>
  )

describe.skipIf(!usable)(`sandboxed shell commands die as unsandboxed ones do${skipped}`, () => {
  it("on timeout the whole tree dies: children, grandchildren and one that called setsid", async () => {
    const ws = await makeWorkspace()
    const m = marker()
    const text = await withTools({ bashTimeoutSeconds: 0.5 }, (tools) =>
      Effect.map(
        runTool(tools.bash, { command: `[ -w . ] || echo read-only; sleep ${m} & (sleep ${m} & wait) & setsid sleep ${m} & sleep ${m} & wait` }, sandboxed(ws)),
        (out) => out.text
      )
    )
    // The second line proves the run was sandboxed.
    expect(text).toBe("timed out after 0.5 s; its processes were killed\nread-only")
    expect(sleepers(m)).toEqual([])
  })

  it("a command that ignores SIGTERM dies too", async () => {
    const ws = await makeWorkspace()
    const m = marker()
    await withTools({ bashTimeoutSeconds: 0.3, graceMs: 400 }, (tools) =>
      runTool(tools.bash, { command: `trap '' TERM; sleep ${m} & while :; do sleep 0.05; done` }, sandboxed(ws))
    )
    expect(sleepers(m)).toEqual([])
  })

  it("cancellation (interrupting the effect) kills the tree", async () => {
    const ws = await makeWorkspace()
    const m = marker()
    await withTools({}, (tools) =>
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(runTool(tools.bash, { command: `sleep ${m} & (sleep ${m} & wait) & wait` }, sandboxed(ws)))
        expect(yield* Effect.promise(() => eventually(() => sleepers(m).length === 2))).toBe(true)
        yield* Fiber.interrupt(fiber)
        expect(sleepers(m)).toEqual([])
      })
    )
  })

  it("what the command left running dies once it exits", async () => {
    const ws = await makeWorkspace()
    const m = marker()
    const text = await withTools({}, (tools) =>
      Effect.map(runTool(tools.bash, { command: `sleep ${m} >/dev/null 2>&1 & sleep ${m} & echo started` }, sandboxed(ws)), (out) => out.text)
    )
    expect(text).toBe("exit 0\nstarted")
    expect(await eventually(() => sleepers(m).length === 0, 10_000)).toBe(true)
  })

  it("bash_stop and the session's scope kill sandboxed background tasks, grandchildren included", async () => {
    const ws = await makeWorkspace()
    const scope = Effect.runSync(Scope.make())
    const background = await Effect.runPromise(makeBackgroundBash({ timeoutSeconds: null, graceMs: 300 }).pipe(Effect.provideService(Scope.Scope, scope)))
    const tools = makeBashTools({ background, bashTimeoutSeconds: 30, classifyCommand: classifyForTest })
    const [stopped, closed] = [marker(), marker()]
    const started = await Effect.runPromise(runTool(tools.bashStart, { command: `sleep ${stopped} & (sleep ${stopped} & wait) & wait` }, sandboxed(ws)))
    expect(started.text).toMatch(/^started bg1 \(pid \d+\)$/)
    await Effect.runPromise(runTool(tools.bashStart, { command: `trap '' TERM; sleep ${closed} & wait` }, sandboxed(ws)))
    expect(await eventually(() => sleepers(stopped).length === 2 && sleepers(closed).length === 1)).toBe(true)
    expect((await Effect.runPromise(runTool(tools.bashStop, { id: "bg1" }, ws.context))).text).toMatch(/^bg1 stopped by bash_stop after \d/)
    expect(sleepers(stopped)).toEqual([])
    await Effect.runPromise(Scope.close(scope, Exit.void))
    expect(sleepers(closed)).toEqual([])
  })

  it("a crystal killed with SIGKILL takes its sandboxed tasks with it (bwrap's --die-with-parent), setsid or not", async () => {
    const ws = await makeWorkspace()
    const m = marker()
    const bun = path.resolve(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "bun")
    const child = spawn(bun, [path.join(import.meta.dirname, "fixtures", "sandboxed-process.ts"), ws.workspace, m], { stdio: ["ignore", "pipe", "inherit"] })
    if (child.pid !== undefined) leftovers.add(child.pid)
    expect(await eventually(() => sleepers(m).length === 2, 10_000)).toBe(true)
    child.kill("SIGKILL")
    expect(await eventually(() => sleepers(m).length === 0, 10_000)).toBe(true)
  })
})
