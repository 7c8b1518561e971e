/**
 * BackgroundBash: the session's background shell tasks (SPEC T6). Built in a Scope — the
 * session's — whose closing kills every task's process tree and waits until it is dead, whatever
 * ends the session (normal exit, Ctrl+C, SIGTERM, a failed turn). Tasks are never saved.
 *
 * Each task is a shell spawned by spawn.ts and watched by a daemon fiber: it waits for the shell
 * (up to the background timeout), then kills what is left of the tree; interrupting the fiber
 * (bash_stop, scope close) kills the tree in its finalizer. Output goes into a ring buffer per task,
 * read by stream offset.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import {
  DEFAULT_GRACE_MS,
  DEFAULT_KEPT_FINISHED_LOGS,
  DEFAULT_LOG_BUFFER_BYTES,
  DEFAULT_LOG_READ_BYTES,
  DEFAULT_MAX_TASKS,
  drainWaitMs
} from "./limits.ts"
import { killLeftovers, killProcessTree, killProcessTrees } from "./process-tree.ts"
import { RingBuffer } from "./ring-buffer.ts"
import type { SandboxRequest } from "./sandbox.ts"
import { makeSandboxPool, type SandboxPool } from "./sandbox-pool.ts"
import { spawnShell, type ShellExit } from "./spawn.ts"
import type { Secrets } from "../secrets/secrets.ts"


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

export interface BackgroundBashShape {
  readonly maxTasks: number
  /** Null: no timer. */
  readonly timeoutSeconds: number | null
  readonly bufferBytes: number
  readonly graceMs: number
  /** Starts a task and returns at once. Fails when `maxTasks` are running or the scope is closing. */
  readonly start: (command: string, options: StartOptions) => Effect.Effect<TaskInfo, BackgroundBashError>
  readonly status: (id: string) => Effect.Effect<TaskInfo, BackgroundBashError>
  /** Every task of the session, oldest first. */
  readonly list: Effect.Effect<ReadonlyArray<TaskInfo>>
  readonly logs: (id: string, request?: LogRequest) => Effect.Effect<LogSlice, BackgroundBashError>
  /** Kills the task's process tree (SIGTERM, SIGKILL after `graceMs`) and waits until it is dead. */
  readonly stop: (id: string) => Effect.Effect<TaskInfo, BackgroundBashError>
  /** The session's OS sandboxes, for sandboxed commands (foreground ones too): closed after the tasks were killed. */
  readonly sandbox: SandboxPool
}

export interface StartOptions {
  readonly cwd: string
  /** See SpawnShellOptions.secrets: the task's log never holds them. */
  readonly secrets: Secrets
  /** See SpawnShellOptions.sandbox. */
  readonly sandbox?: SandboxRequest | undefined
}

export interface BackgroundBashOptions {
  /** Per-task time limit; null = none. */
  readonly timeoutSeconds: number | null
  /** Default 32. */
  readonly maxTasks?: number
  /** Ring buffer per task. Default 1 MiB. */
  readonly bufferBytes?: number
  /** SIGTERM → SIGKILL delay. Default 2000 ms. */
  readonly graceMs?: number
  /** Finished tasks whose logs are kept (older ones keep only their state). Default 64. */
  readonly keptFinishedLogs?: number
  readonly env?: NodeJS.ProcessEnv
  readonly shell?: string
  /** See SpawnShellOptions.drainMs. */
  readonly drainMs?: number
  /** See SpawnShellOptions.home. */
  readonly home?: string | undefined
}

interface Task {
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

const infoOf = (task: Task): TaskInfo => ({
  id: task.id,
  command: task.command,
  cwd: task.cwd,
  pid: task.pid,
  state: task.state,
  startedAt: task.startedAt,
  endedAt: task.endedAt,
  outputBytes: task.log.end
})

const exitState = (exit: ShellExit): TaskState =>
  exit.code !== null ? { status: "exited", code: exit.code } : { status: "killed", signal: exit.signal ?? "unknown signal" }

/**
 * The service, living in the current Scope: closing it refuses new tasks, then kills every running
 * task's tree in parallel and waits for all of them (at most the grace period plus the SIGKILL wait).
 */
export const makeBackgroundBash = (options: BackgroundBashOptions): Effect.Effect<BackgroundBashShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS
    const bufferBytes = options.bufferBytes ?? DEFAULT_LOG_BUFFER_BYTES
    const graceMs = options.graceMs ?? DEFAULT_GRACE_MS
    const keptFinishedLogs = options.keptFinishedLogs ?? DEFAULT_KEPT_FINISHED_LOGS
    const timeoutSeconds = options.timeoutSeconds
    const kill = { graceMs }
    // Made before the finalizer below, so closed after it: the tasks get their grace period first.
    const sandbox = yield* makeSandboxPool({ graceMs })

    const tasks = new Map<string, Task>()
    /** Finished tasks still holding their logs, oldest first. */
    const finishedWithLogs: Array<Task> = []
    let sequence = 0
    let closing = false

    const running = (): Array<Task> => [...tasks.values()].filter((task) => task.state.status === "running")

    const settle = (task: Task, state: TaskState): void => {
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
    }

    const find = (id: string): Effect.Effect<Task, BackgroundBashError> =>
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

    /** Watches one task to its end; interruption (stop, scope close) kills its tree. */
    const supervise = (task: Task, shell: { readonly pid: number; readonly finished: Effect.Effect<ShellExit>; readonly result: () => ShellExit | undefined }) => {
      const waited =
        timeoutSeconds === null ? Effect.asSome(shell.finished) : Effect.timeoutOption(shell.finished, Duration.millis(timeoutSeconds * 1000))
      const drain = Effect.timeoutOption(shell.finished, Duration.millis(drainWaitMs(options.drainMs)))
      return waited.pipe(
        Effect.flatMap(
          Option.match({
            onSome: (exit) =>
              killLeftovers(task.pid, kill).pipe(
                Effect.zipRight(Effect.sync(() => settle(task, task.stopping ? { status: "stopped" } : exitState(exit))))
              ),
            onNone: () =>
              killProcessTree(task.pid, kill).pipe(
                Effect.zipRight(drain),
                Effect.zipRight(Effect.sync(() => settle(task, { status: "timed out", seconds: timeoutSeconds ?? 0 })))
              )
          })
        ),
        Effect.onInterrupt(() =>
          Effect.suspend(() => {
            // It may have ended by itself just before the stop: report how it really ended.
            const ended = shell.result()
            return (task.treeKilled ? Effect.void : killProcessTree(task.pid, kill)).pipe(
              Effect.zipRight(ended === undefined ? drain : Effect.void),
              Effect.zipRight(Effect.sync(() => settle(task, ended === undefined || task.stopping ? { status: "stopped" } : exitState(ended))))
            )
          })
        )
      )
    }

    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closing = true
        const active = running()
        for (const task of active) task.stopping = true
        // All trees at once (one grace period in all, one /proc read per step), then the
        // supervisors, which only record the end.
        return killProcessTrees(
          active.map((task) => task.pid),
          kill
        ).pipe(
          Effect.zipRight(
            Effect.suspend(() => {
              for (const task of active) task.treeKilled = true
              return Fiber.interruptAll(active.flatMap((task) => (task.fiber === undefined ? [] : [task.fiber])))
            })
          )
        )
      })
    )

    const start = Effect.fn("BackgroundBash.start")(function* (command: string, startOptions: StartOptions) {
      if (closing) return yield* new BackgroundBashError({ message: "the session is closing; no new background task can start" })
      const active = running().length
      if (active >= maxTasks) {
        return yield* new BackgroundBashError({
          message: `${active} background tasks are already running (the limit is ${maxTasks}); stop one with bash_stop or wait for one to finish`
        })
      }
      const log = new RingBuffer(bufferBytes)
      const shell = yield* spawnShell({
        command,
        cwd: startOptions.cwd,
        onOutput: (chunk) => log.write(chunk),
        secrets: startOptions.secrets,
        home: options.home,
        sandbox: startOptions.sandbox,
        sandboxPool: sandbox,
        ...(options.drainMs === undefined ? {} : { drainMs: options.drainMs }),
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.shell === undefined ? {} : { shell: options.shell })
      }).pipe(Effect.mapError((error) => new BackgroundBashError({ message: error.message })))
      const task: Task = {
        id: `bg${++sequence}`,
        command,
        cwd: startOptions.cwd,
        pid: shell.pid,
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
      // `start` runs uninterruptibly (so that a spawned process always gets its supervisor), and a
      // fork inherits that: the supervisor must be made interruptible again, or stop would hang.
      task.fiber = yield* Effect.forkDaemon(Effect.interruptible(supervise(task, shell)))
      if (closing) {
        // The scope began closing while this task was being started: it must not outlive it.
        task.stopping = true
        yield* Fiber.interrupt(task.fiber)
        return yield* new BackgroundBashError({ message: "the session is closing; no new background task can start" })
      }
      return infoOf(task)
    }, Effect.uninterruptible)

    const status = Effect.fn("BackgroundBash.status")(function* (id: string) {
      return infoOf(yield* find(id))
    })

    const logs = Effect.fn("BackgroundBash.logs")(function* (id: string, request: LogRequest = {}) {
      const task = yield* find(id)
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
      } satisfies LogSlice
    })

    const stop = Effect.fn("BackgroundBash.stop")(function* (id: string) {
      const task = yield* find(id)
      if (task.state.status === "running" && task.fiber !== undefined) yield* Fiber.interrupt(task.fiber)
      return infoOf(task)
    })

    return {
      maxTasks,
      timeoutSeconds,
      bufferBytes,
      graceMs,
      start,
      status,
      list: Effect.sync(() => [...tasks.values()].map(infoOf)),
      logs,
      stop,
      sandbox
    } satisfies BackgroundBashShape
  })
