import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterEach, describe, expect, it } from "vitest"
import { BackgroundBash } from "../../../src/bash/background-bash.ts"
import {
  makeBackgroundBash,
  type BackgroundBashOptions,
  type BackgroundBashShape
} from "../../../src/bash/background.ts"
import type { TaskInfo } from "../../../src/bash/background-tasks.ts"
import { backgroundTimeoutSeconds } from "../../../src/bash/limits.ts"
import { trackedLeaders } from "../../../src/bash/process-tree.ts"
import { makeBashTools, type BashTools } from "../../../src/tools/bash-tools.ts"
import { alive, classifyForTest, eventually, makeWorkspace, pidsIn, reap, runTool, type Workspace } from "./support.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"

const leftovers = new Set<number>()
afterEach(() => {
  reap(leftovers)
  leftovers.clear()
})

interface Session {
  readonly background: BackgroundBashShape
  readonly tools: BashTools
  readonly ws: Workspace
  readonly scope: Scope.CloseableScope
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly text: (tool: keyof BashTools, args: unknown) => Promise<string>
  readonly error: (tool: keyof BashTools, args: unknown) => Promise<string>
  readonly start: (command: string) => Promise<TaskInfo>
  /** Waits until the task printed `count` pids, one per line; gives them (and remembers them for clean-up). */
  readonly pids: (id: string, count: number) => Promise<Array<number>>
  readonly waitFinished: (id: string, ms?: number) => Promise<TaskInfo>
  readonly close: () => Promise<void>
}

const sessions: Array<Session> = []
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close()
})

/** A session scope holding a BackgroundBash service, closed after the test. */
const openSession = async (options: Partial<BackgroundBashOptions> = {}): Promise<Session> => {
  const ws = await makeWorkspace()
  const scope = Effect.runSync(Scope.make())
  const background = await Effect.runPromise(
    makeBackgroundBash({ timeoutSeconds: null, graceMs: 300, ...options }).pipe(Effect.provideService(Scope.Scope, scope))
  )
  const tools = makeBashTools({ background, bashTimeoutSeconds: 30, classifyCommand: classifyForTest })
  const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)
  const status = (id: string) => run(background.status(id))
  let closed = false
  const session: Session = {
    background,
    tools,
    ws,
    scope,
    run,
    text: async (tool, args) => (await run(runTool(tools[tool], args, ws.context))).text,
    error: async (tool, args) => (await run(Effect.flip(runTool(tools[tool], args, ws.context)))).message,
    start: (command) => run(background.start(command, { cwd: ws.workspace, secrets: noSecrets })),
    pids: async (id, count) => {
      let found: Array<number> = []
      await eventually(async () => {
        found = pidsIn((await run(background.logs(id, { offset: 0, limit: 65536 }))).text)
        return found.length >= count
      })
      found.forEach((pid) => leftovers.add(pid))
      return found
    },
    waitFinished: async (id, ms = 5000) => {
      await eventually(async () => (await status(id)).state.status !== "running", ms)
      return status(id)
    },
    close: async () => {
      if (closed) return
      closed = true
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
  sessions.push(session)
  return session
}

describe("backgroundTimeoutSeconds", () => {
  it("maps the config setting: omitted = 10800, null or unlimited = no timer", () => {
    expect(backgroundTimeoutSeconds(undefined)).toBe(10800)
    expect(backgroundTimeoutSeconds(null)).toBeNull()
    expect(backgroundTimeoutSeconds("unlimited")).toBeNull()
    expect(backgroundTimeoutSeconds(60)).toBe(60)
  })
})

describe("BackgroundBash", () => {
  it("as a layer: its tasks die when the layer's scope closes", async () => {
    const ws = await makeWorkspace()
    const program = Effect.gen(function* () {
      const background = yield* BackgroundBash
      const task = yield* background.start("echo $$; sleep 1000 & echo $!; wait", { cwd: ws.workspace, secrets: noSecrets })
      for (;;) {
        const pids = pidsIn((yield* background.logs(task.id, { offset: 0 })).text)
        if (pids.length === 2) return pids
        yield* Effect.sleep(20)
      }
    })
    const pids = await Effect.runPromise(program.pipe(Effect.provide(BackgroundBash.layer({ timeoutSeconds: null, graceMs: 300 }))))
    pids.forEach((pid) => leftovers.add(pid))
    expect(pids.filter(alive)).toEqual([])
  })

  it("starts a task at once in the workspace and reports how it ended", async () => {
    const s = await openSession()
    const started = Date.now()
    const task = await s.start("sleep 0.3; pwd; echo done; exit 4")
    expect(Date.now() - started).toBeLessThan(200)
    expect(task).toMatchObject({ id: "bg1", state: { status: "running" }, cwd: s.ws.workspace })
    const finished = await s.waitFinished("bg1")
    expect(finished.state).toEqual({ status: "exited", code: 4 })
    expect(finished.endedAt).toBeGreaterThanOrEqual(finished.startedAt)
    const logs = await s.run(s.background.logs("bg1"))
    expect(logs).toMatchObject({ text: `${s.ws.workspace}\ndone\n`, offset: 0, running: false, skipped: false })
    expect((await s.start("true")).id).toBe("bg2")
  })

  it("runs 32 tasks, refuses the 33rd, and frees a slot when a task finishes or is stopped", async () => {
    const s = await openSession()
    const started = Date.now()
    for (let index = 0; index < 31; index++) await s.start("sleep 1000")
    await s.start("sleep 0.3")
    expect(Date.now() - started).toBeLessThan(3000)
    const refused = await s.error("bashStart", { command: "echo one too many" })
    expect(refused).toBe("32 background tasks are already running (the limit is 32); stop one with bash_stop or wait for one to finish")
    // bg32 finishes by itself: its slot is free, and it stays queryable.
    expect((await s.waitFinished("bg32")).state).toEqual({ status: "exited", code: 0 })
    expect(await s.text("bashStart", { command: "sleep 1000" })).toMatch(/^started bg33 \(pid \d+\)$/)
    await expect(s.start("sleep 1000")).rejects.toThrow(/already running/)
    expect(await s.text("bashStop", { id: "bg1" })).toMatch(/^bg1 stopped by bash_stop after /)
    expect((await s.start("sleep 1000")).id).toBe("bg34")
    const list = await s.run(s.background.list)
    expect(list).toHaveLength(34)
    expect(list.filter((task) => task.state.status === "running")).toHaveLength(32)
    const pids = list.map((task) => task.pid)
    pids.forEach((pid) => leftovers.add(pid))
    const closing = Date.now()
    await s.close()
    expect(pids.filter(alive)).toEqual([])
    // In parallel: one grace period at most, not 32 of them.
    expect(Date.now() - closing).toBeLessThan(2000)
  })

  it("reads logs by offset across buffer wraps, saying when an offset was dropped", async () => {
    const s = await openSession({ bufferBytes: 100 })
    await s.start("for i in $(seq 1000 1099); do echo $i; done") // 100 lines of 5 bytes
    await s.waitFinished("bg1")
    const fromZero = await s.run(s.background.logs("bg1", { offset: 0 }))
    expect(fromZero).toMatchObject({ offset: 400, nextOffset: 500, oldestOffset: 400, totalBytes: 500, skipped: true })
    expect(pidsIn(fromZero.text)).toEqual(Array.from({ length: 20 }, (_, i) => 1080 + i))
    const middle = await s.run(s.background.logs("bg1", { offset: 450, limit: 20 }))
    expect(middle).toMatchObject({ text: "1090\n1091\n1092\n1093\n", offset: 450, nextOffset: 470, skipped: false })
    const tail = await s.run(s.background.logs("bg1", { limit: 10 }))
    expect(tail).toMatchObject({ text: "1098\n1099\n", offset: 490, nextOffset: 500 })
    const past = await s.run(s.background.logs("bg1", { offset: 9999 }))
    expect(past).toMatchObject({ text: "", offset: 500, nextOffset: 500 })

    const text = await s.text("bashLogs", { id: "bg1", offset: 10, limit: 64 })
    expect(text.split("\n").slice(0, 2)).toEqual([
      "[bg1 finished; bytes 400–464 of 500; oldest held 400; next offset 464]",
      "[offset 10 is no longer held: older output was dropped; showing from 400]"
    ])
  })

  it("follows a running task's output by offset while the buffer wraps", async () => {
    const s = await openSession({ bufferBytes: 64 })
    await s.start("for i in $(seq 1 40); do echo line$i; sleep 0.02; done")
    let offset = 0
    let collected = ""
    for (;;) {
      const slice = await s.run(s.background.logs("bg1", { offset, limit: 64 }))
      expect(slice.skipped).toBe(false)
      collected += slice.text
      offset = slice.nextOffset
      if (!slice.running && slice.nextOffset === slice.totalBytes) break
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(collected).toBe(Array.from({ length: 40 }, (_, i) => `line${i + 1}\n`).join(""))
    expect(await s.text("bashLogs", { id: "bg1", offset })).toBe(`[bg1 finished; bytes ${offset}–${offset} of ${offset}; oldest held ${offset - 64}; next offset ${offset}]\n(no output in this range)`)
  })

  it("kills a task when its timer fires", async () => {
    const s = await openSession({ timeoutSeconds: 0.4 })
    await s.start("echo $$; sleep 1000 & echo $!; wait")
    const pids = await s.pids("bg1", 2)
    const finished = await s.waitFinished("bg1")
    expect(finished.state).toEqual({ status: "timed out", seconds: 0.4 })
    expect(pids.filter(alive)).toEqual([])
    expect(await s.text("bashStatus", { id: "bg1" })).toMatch(/^bg1 \(pid \d+\): timed out after 0.4 s and was killed; \d+ bytes of output; `echo \$\$; sleep 1000 & echo \$!; wait`$/)
  })

  it("bash_stop kills the process tree, grandchildren included", async () => {
    const s = await openSession()
    await s.start("echo $$; sleep 1000 & echo $!; (sleep 1000 & echo $!; wait) & wait")
    const pids = await s.pids("bg1", 3)
    expect(pids.filter(alive)).toHaveLength(3)
    const text = await s.text("bashStop", { id: "bg1" })
    expect(text).toMatch(/^bg1 stopped by bash_stop after \d/)
    expect(pids.filter(alive)).toEqual([])
    expect(await s.text("bashStop", { id: "bg1" })).toMatch(/^bg1 was not running: stopped by bash_stop/)
  })

  it("SIGKILLs a task that ignores SIGTERM once the grace period is over", async () => {
    const s = await openSession({ graceMs: 400 })
    await s.start("trap '' TERM; echo $$; sleep 1000 & echo $!; while :; do sleep 0.05; done")
    const pids = await s.pids("bg1", 2)
    const started = Date.now()
    await s.run(s.background.stop("bg1"))
    expect(Date.now() - started).toBeGreaterThanOrEqual(400)
    expect(pids.filter(alive)).toEqual([])
  })

  it("closing the scope kills every task tree and refuses new tasks", async () => {
    const s = await openSession({ graceMs: 400 })
    await s.start("echo $$; sleep 1000 & echo $!; wait")
    await s.start("trap '' TERM; echo $$; sleep 1000 & echo $!; wait")
    await s.start("echo $$; (sleep 1000 & echo $!; wait) & wait")
    const pids = [...(await s.pids("bg1", 2)), ...(await s.pids("bg2", 2)), ...(await s.pids("bg3", 2))]
    expect(pids.filter(alive)).toHaveLength(6)
    const started = Date.now()
    await s.close()
    expect(pids.filter(alive)).toEqual([])
    expect(Date.now() - started).toBeLessThan(2000)
    const leaders = (await s.run(s.background.list)).map((task) => task.pid)
    expect(leaders.filter((pid) => trackedLeaders().has(pid))).toEqual([])
    await expect(s.start("true")).rejects.toThrow("the session is closing; no new background task can start")
    expect((await s.run(s.background.status("bg2"))).state).toEqual({ status: "stopped" })
  })

  it("closes stdin: a task reading it sees end of file", async () => {
    const s = await openSession()
    await s.start('cat; read line; echo "read=$?"')
    expect((await s.waitFinished("bg1")).state).toEqual({ status: "exited", code: 0 })
    expect((await s.run(s.background.logs("bg1"))).text).toBe("read=1\n")
  })

  it("reports a task killed by someone else's signal, and kills what a finished shell left behind", async () => {
    const s = await openSession()
    await s.start("kill -KILL $$")
    expect((await s.waitFinished("bg1")).state).toEqual({ status: "killed", signal: "SIGKILL" })
    await s.start("sleep 1000 & echo $!")
    const [leftover] = await s.pids("bg2", 1)
    expect((await s.waitFinished("bg2")).state).toEqual({ status: "exited", code: 0 })
    expect(await eventually(() => !alive(leftover ?? 0), 2000)).toBe(true)
  })

  it("keeps the logs of the most recently finished tasks only", async () => {
    const s = await openSession({ keptFinishedLogs: 1 })
    await s.start("echo first")
    await s.waitFinished("bg1")
    await s.start("echo second")
    await s.waitFinished("bg2")
    expect(await s.text("bashLogs", { id: "bg1" })).toBe(
      "[bg1 finished; bytes 6–6 of 6; oldest held 6; next offset 6]\n[this finished task's output was released to save memory; only its state is kept]\n(no output in this range)"
    )
    expect((await s.run(s.background.logs("bg2"))).text).toBe("second\n")
    expect((await s.run(s.background.status("bg1"))).state).toEqual({ status: "exited", code: 0 })
  })

  it("names unknown tasks clearly", async () => {
    const s = await openSession()
    expect(await s.error("bashLogs", { id: "bg7" })).toBe('no background task "bg7"; none was started in this session')
    await s.start("true")
    expect(await s.error("bashStop", { id: "bg7" })).toBe('no background task "bg7"; known: bg1')
    expect(await s.error("bashStatus", { id: "nope" })).toBe('no background task "nope"; known: bg1')
  })

  it("lists all tasks with bash_status", async () => {
    const s = await openSession()
    expect(await s.text("bashStatus", {})).toBe("no background tasks in this session")
    await s.start("echo hi")
    await s.waitFinished("bg1")
    await s.start("sleep 1000\necho never")
    const lines = (await s.text("bashStatus", {})).split("\n")
    expect(lines[0]).toMatch(/^bg1 \(pid \d+\): exited with code 0 after \d+\.\d s; 3 bytes of output; `echo hi`$/)
    expect(lines[1]).toMatch(/^bg2 \(pid \d+\): running for \d+\.\d s; 0 bytes of output; `sleep 1000 …`$/)
    expect(lines[2]).toBe("1 of 32 running")
  })

  it("describes its limits in the tool definitions", async () => {
    const s = await openSession({ timeoutSeconds: 10800 })
    const tools = makeBashTools({ background: s.background, bashTimeoutSeconds: 120, classifyCommand: classifyForTest })
    expect(tools.bash.description).toContain("killed after 120 s")
    expect(tools.bash.description).toContain("first 100 and last 300 lines (32 KiB)")
    expect(tools.bashStart.description).toContain("1 MiB buffer")
    expect(tools.bashStart.description).toContain("Tasks are killed after 10800 s (3 h) and when the session ends. At most 32 run at once")
    expect(tools.bashStop.description).toContain("SIGKILL after 0.3 s")
    const unlimited = await openSession({ timeoutSeconds: backgroundTimeoutSeconds("unlimited") })
    const free = makeBashTools({ background: unlimited.background, bashTimeoutSeconds: 120, classifyCommand: classifyForTest })
    expect(free.bashStart.description).toContain("Tasks are killed when the session ends.")
  })

  it("classifies: status and logs are low-risk reads, stop a low-risk execute, start goes through the classifier", async () => {
    const s = await openSession()
    const classify = (tool: keyof BashTools, args: Record<string, unknown>) =>
      s.run(s.tools[tool].classify(args as never, s.ws.context))
    expect(await classify("bashStatus", {})).toEqual({ risk: "low", authority: "read", scope: "workspace", summary: "bash_status (all)", paths: [], grantKey: "bash_status" })
    expect(await classify("bashLogs", { id: "bg1" })).toMatchObject({ risk: "low", authority: "read", scope: "workspace", paths: [] })
    expect(await classify("bashStop", { id: "bg1" })).toMatchObject({ risk: "low", authority: "execute", scope: "workspace", paths: [] })
    expect(await classify("bashStart", { command: "npm run dev" })).toMatchObject({ summary: "run `npm run dev`" })
    expect(Object.values(s.tools).map((tool) => tool.name)).toEqual(["bash", "bash_start", "bash_status", "bash_logs", "bash_stop"])
  })
})
