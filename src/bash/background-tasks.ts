/**
 * The session's background tasks as BackgroundBash (background.ts) keeps them: what each one is,
 * how it ended, its log read by stream offset, and the table that numbers them (bg1, bg2, …) and
 * releases the logs of long-finished ones to bound memory.
 */
import type * as Fiber from "effect/Fiber"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DEFAULT_LOG_READ_BYTES } from "./limits.ts"
import type { RingBuffer } from "./ring-buffer.ts"
import type { ShellExit } from "./spawn.ts"

/** A request the service refuses: unknown task, too many running, session closing. */
export class BackgroundBashError extends Schema.TaggedError<BackgroundBashError>()("BackgroundBashError", {
  message: Schema.String
}) {}

export type TaskState =
  | { readonly status: "running" }
  | { readonly status: "exited"; readonly code: number }
  /** Ended by a signal nobody here sent (an OOM kill, a `kill` from another shell). */
  | { readonly status: "killed"; readonly signal: string }
  /** Ended by bash_stop. */
  | { readonly status: "stopped" }
  | { readonly status: "timed out"; readonly seconds: number }

export interface TaskInfo {
  readonly id: string
  readonly command: string
  readonly cwd: string
  /** The shell's pid (= its process group and session id). */
  readonly pid: number
  readonly state: TaskState
  /** Epoch milliseconds. */
  readonly startedAt: number
  readonly endedAt: number | undefined
  /** Bytes of output written so far (= the offset the next byte will have). */
  readonly outputBytes: number
}

export interface LogSlice {
  readonly id: string
  readonly text: string
  /** Offset of the first byte of `text`. */
  readonly offset: number
  /** Where the next read continues (just past `text`). */
  readonly nextOffset: number
  /** The oldest offset still held: older output was dropped from the buffer. */
  readonly oldestOffset: number
  /** Bytes written so far. */
  readonly totalBytes: number
  /** The offset asked for was older than `oldestOffset`: `text` starts at the oldest byte held. */
  readonly skipped: boolean
  /** Finished long ago: its log was released to bound memory (see `keptFinishedLogs`). */
  readonly released: boolean
  readonly running: boolean
}

export interface LogRequest {
  /** Default: the last `limit` bytes. */
  readonly offset?: number | undefined
  /** Default 16 KiB. */
  readonly limit?: number | undefined
}

export interface Task {
  readonly id: string
  readonly command: string
  readonly cwd: string
  readonly pid: number
  readonly startedAt: number
  readonly log: RingBuffer
  state: TaskState
  endedAt: number | undefined
  released: boolean
  /** Set when the session's finalizer starts killing the tree: its end is a stop, not an exit. */
  stopping: boolean
  /** Set once the session's finalizer killed the tree: the supervisor need not look again. */
  treeKilled: boolean
  fiber: Fiber.RuntimeFiber<void> | undefined
}

export const infoOf = (task: Task): TaskInfo => ({
  id: task.id,
  command: task.command,
  cwd: task.cwd,
  pid: task.pid,
  state: task.state,
  startedAt: task.startedAt,
  endedAt: task.endedAt,
  outputBytes: task.log.end
})

export const exitState = (exit: ShellExit): TaskState =>
  exit.code !== null ? { status: "exited", code: exit.code } : { status: "killed", signal: exit.signal ?? "unknown signal" }

export const logSlice = (task: Task, request: LogRequest): LogSlice => {
  const limit = Math.max(1, request.limit ?? DEFAULT_LOG_READ_BYTES)
  const from = Math.min(request.offset ?? Math.max(0, task.log.end - limit), task.log.end)
  const slice = task.log.readText(from, limit)
  return {
    id: task.id,
    text: slice.text,
    offset: slice.from,
    nextOffset: slice.to,
    oldestOffset: task.log.start,
    totalBytes: task.log.end,
    skipped: request.offset !== undefined && from < task.log.start,
    released: task.released,
    running: task.state.status === "running"
  }
}

export interface TaskTable {
  /** A new running task, numbered after the last one. */
  readonly add: (command: string, cwd: string, pid: number, log: RingBuffer) => Task
  /** Every task of the session, oldest first. */
  readonly all: () => ReadonlyArray<Task>
  readonly running: () => ReadonlyArray<Task>
  /** Records how a running task ended (a second end is ignored); the oldest finished logs beyond `keptFinishedLogs` are released. */
  readonly settle: (task: Task, state: TaskState) => void
  readonly find: (id: string) => Effect.Effect<Task, BackgroundBashError>
}

export const makeTaskTable = (keptFinishedLogs: number): TaskTable => {
  const tasks = new Map<string, Task>()
  /** Finished tasks still holding their logs, oldest first. */
  const finishedWithLogs: Array<Task> = []
  let sequence = 0
  return {
    add: (command, cwd, pid, log) => {
      const task: Task = {
        id: `bg${++sequence}`,
        command,
        cwd,
        pid,
        startedAt: Date.now(),
        log,
        state: { status: "running" },
        endedAt: undefined,
        released: false,
        stopping: false,
        treeKilled: false,
        fiber: undefined
      }
      tasks.set(task.id, task)
      return task
    },
    all: () => [...tasks.values()],
    running: () => [...tasks.values()].filter((task) => task.state.status === "running"),
    settle: (task, state) => {
      if (task.state.status !== "running") return
      task.state = state
      task.endedAt = Date.now()
      task.log.freeze()
      finishedWithLogs.push(task)
      while (finishedWithLogs.length > keptFinishedLogs) {
        const oldest = finishedWithLogs.shift()
        if (oldest !== undefined) {
          oldest.log.release()
          oldest.released = true
        }
      }
    },
    find: (id) =>
      Effect.suspend(() => {
        const task = tasks.get(id.trim())
        if (task !== undefined) return Effect.succeed(task)
        const known = [...tasks.keys()]
        return Effect.fail(
          new BackgroundBashError({
            message: `no background task ${JSON.stringify(id)}; ${known.length === 0 ? "none was started in this session" : `known: ${known.join(", ")}`}`
          })
        )
      })
  }
}
