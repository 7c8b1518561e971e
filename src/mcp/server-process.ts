/**
 * A stdio MCP server's process, contained like a shell (src/bash/spawn.ts): the leader of its own
 * session and process group, tagged with CRYSTAL_CONTAIN and tracked for the exit hook, so
 * closing kills its whole tree (SIGTERM, grace, SIGKILL; process-tree.ts) — the SDK's own
 * StdioClientTransport signals only the child, and what an `npx` wrapper or the server started
 * would outlive the session. This module imports nothing of the SDK: the session spawns its
 * servers first and loads the SDK while they boot (layers/session-mcp.ts). Output that arrives
 * before the transport listens is kept and handed over. Nothing of Effect is imported here at
 * load: config.json's servers are spawned through this module before the rest of Crystal loads
 * (early-servers.ts); the containment's set-up and the graceful kill load when first needed.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { taggedEnvironment, trackLeader } from "../bash/process-table.ts"

export interface StdioServerCommand {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string
}

/** The last of what a server wrote to stderr, kept for the note when it fails. */
const STDERR_KEEP_BYTES = 4096

export interface ServerProcessEvents {
  readonly stdout: (chunk: Buffer) => void
  readonly exit: () => void
  readonly error: (error: Error) => void
}

export interface ServerProcess {
  readonly child: ChildProcess
  /** Resolves once the process runs; rejects when it could not be started (ENOENT and the like). */
  readonly started: Promise<void>
  /** Receives stdout (the chunks so far first), the exit and errors from now on. */
  readonly listen: (events: ServerProcessEvents) => void
  /** What the server last wrote to stderr, trimmed. */
  readonly stderr: () => string
  readonly exited: () => boolean
  /** Ends the server and everything it started; safe to call more than once. */
  readonly kill: (graceMs: number) => Promise<void>
}

/**
 * The containment's one-time set-up (subreaper, pid file: src/bash/containment.ts), run before a
 * session's first server is spawned or adopted.
 */
export const prepareServerContainment = async (): Promise<void> => {
  const [Effect, containment] = await Promise.all([import("effect/Effect"), import("../bash/containment.ts")])
  await Effect.runPromise(containment.prepareContainment)
}

/** Spawns after the containment's set-up; `started` says whether it runs. */
export const spawnServerProcess = async (server: StdioServerCommand): Promise<ServerProcess> => {
  await prepareServerContainment()
  return startServerProcess(server)
}

/**
 * Spawns at once: tagged and tracked (the exit hook kills its tree), but without the containment's
 * set-up, which the session runs when it takes the process over (early-servers.ts).
 */
export const startServerProcess = (server: StdioServerCommand): ServerProcess => {
  const { env, tag } = taggedEnvironment({ ...server.env })
  const child = spawn(server.command, [...server.args], { cwd: server.cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"], windowsHide: true })
  let stderrTail = ""
  let exited = false
  let failure: Error | undefined
  const early: Array<Buffer> = []
  let events: ServerProcessEvents | undefined
  // At once, not on "spawn": a Crystal that exits before that event (a bad config.json found
  // while the early-spawned server boots) still kills it on the way out.
  if (child.pid !== undefined) trackLeader(child.pid, tag)
  const started = new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve())
    child.once("error", (error) => {
      failure = error
      reject(error)
      events?.error(error)
    })
  })
  // Reported through `started` (or `listen`): never an unhandled rejection.
  started.catch(() => {})
  child.stdout?.on("data", (chunk: Buffer) => (events === undefined ? early.push(chunk) : events.stdout(chunk)))
  child.stderr?.on("data", (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_KEEP_BYTES)
  })
  child.stdin?.on("error", (error) => events?.error(error))
  child.once("close", () => {
    exited = true
    events?.exit()
  })
  let killing: Promise<void> | undefined
  return {
    child,
    started,
    listen: (next) => {
      events = next
      for (const chunk of early.splice(0)) next.stdout(chunk)
      if (failure !== undefined) next.error(failure)
      if (exited) next.exit()
    },
    stderr: () => stderrTail.trim(),
    exited: () => exited,
    kill: (graceMs) =>
      (killing ??= (async () => {
        child.stdin?.end()
        if (child.pid === undefined || failure !== undefined) return
        const [Effect, tree] = await Promise.all([import("effect/Effect"), import("../bash/process-tree.ts")])
        await Effect.runPromise(tree.killProcessTree(child.pid, { graceMs }))
      })())
  }
}
