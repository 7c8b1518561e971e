/**
 * A stdio MCP server's process, contained like a shell (src/bash/spawn.ts): the leader of its own
 * session and process group, tagged with CRYSTAL_CONTAIN and tracked for the exit hook, so
 * closing kills its whole tree (SIGTERM, grace, SIGKILL; process-tree.ts) — the SDK's own
 * StdioClientTransport signals only the child, and what an `npx` wrapper or the server started
 * would outlive the session. This module imports nothing of the SDK: the session spawns its
 * servers first and loads the SDK while they boot (layers/session-mcp.ts). Output that arrives
 * before the transport listens is kept and handed over.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as Effect from "effect/Effect"
import { prepareContainment, taggedEnvironment } from "../bash/containment.ts"
import { killProcessTree, trackLeader } from "../bash/process-tree.ts"

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

/** Spawns at once (after the containment's one-time set-up); `started` says whether it runs. */
export const spawnServerProcess = async (server: StdioServerCommand): Promise<ServerProcess> => {
  await Effect.runPromise(prepareContainment)
  const { env, tag } = taggedEnvironment({ ...server.env })
  const child = spawn(server.command, [...server.args], { cwd: server.cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"], windowsHide: true })
  let stderrTail = ""
  let exited = false
  let failure: Error | undefined
  const early: Array<Buffer> = []
  let events: ServerProcessEvents | undefined
  const started = new Promise<void>((resolve, reject) => {
    child.once("spawn", () => {
      if (child.pid !== undefined) trackLeader(child.pid, tag)
      resolve()
    })
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
        if (child.pid !== undefined && failure === undefined) await Effect.runPromise(killProcessTree(child.pid, { graceMs }))
      })())
  }
}
