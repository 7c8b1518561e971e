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
import type * as Scope from "effect/Scope"
import {
  DEFAULT_GRACE_MS,
  DEFAULT_KEPT_FINISHED_LOGS,
  DEFAULT_LOG_BUFFER_BYTES,
  DEFAULT_MAX_TASKS,
  drainWaitMs
} from "./limits.ts"
import { killLeftovers, killProcessTree, killProcessTrees } from "./process-tree.ts"
import { RingBuffer } from "./ring-buffer.ts"
import type { SandboxRequest } from "./sandbox.ts"
import { makeSandboxPool, type SandboxPool } from "./sandbox-pool.ts"
import { spawnShell, type ShellExit } from "./spawn.ts"
import type { Secrets } from "../secrets/secrets.ts"
import {
  BackgroundBashError,
  exitState,
  infoOf,
  logSlice,
  makeTaskTable,
  type LogRequest,
  type LogSlice,
  type Task,
  type TaskInfo,
  type TaskState
} from "./background-tasks.ts"

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

interface Supervision {
  /** Null: no timer. */
  readonly timeoutSeconds: number | null
  readonly kill: { readonly graceMs: number }
  readonly drainMs: number | undefined
  readonly settle: (task: Task, state: TaskState) => void
}

interface WatchedShell {
  readonly pid: number
  readonly finished: Effect.Effect<ShellExit>
  readonly result: () => ShellExit | undefined
}

/** Watches one task to its end (the timer kills its tree); interruption (stop, scope close) kills its tree. */
const supervise = (task: Task, shell: WatchedShell, { timeoutSeconds, kill, drainMs, settle }: Supervision) => {
  const waited = timeoutSeconds === null ? Effect.asSome(shell.finished) : Effect.timeoutOption(shell.finished, Duration.millis(timeoutSeconds * 1000))
  const drain = Effect.timeoutOption(shell.finished, Duration.millis(drainWaitMs(drainMs)))
  return waited.pipe(
    Effect.flatMap(
      Option.match({
        onSome: (exit) =>
          killLeftovers(task.pid, kill).pipe(Effect.zipRight(Effect.sync(() => settle(task, task.stopping ? { status: "stopped" } : exitState(exit))))),
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

/** The session's end: every running tree killed at once (one grace period in all, one /proc read per step), then the supervisors, which only record the end. */
const stopAll = (active: ReadonlyArray<Task>, kill: { readonly graceMs: number }) =>
  Effect.suspend(() => {
    for (const task of active) task.stopping = true
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

const closingError = () => new BackgroundBashError({ message: "the session is closing; no new background task can start" })

/**
 * The service, living in the current Scope: closing it refuses new tasks, then kills every running
 * task's tree in parallel and waits for all of them (at most the grace period plus the SIGKILL wait).
 */
export const makeBackgroundBash = (options: BackgroundBashOptions): Effect.Effect<BackgroundBashShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS
    const bufferBytes = options.bufferBytes ?? DEFAULT_LOG_BUFFER_BYTES
    const graceMs = options.graceMs ?? DEFAULT_GRACE_MS
    const timeoutSeconds = options.timeoutSeconds
    const kill = { graceMs }
    // Made before the finalizer below, so closed after it: the tasks get their grace period first.
    const sandbox = yield* makeSandboxPool({ graceMs })
    const table = makeTaskTable(options.keptFinishedLogs ?? DEFAULT_KEPT_FINISHED_LOGS)
    const supervision: Supervision = { timeoutSeconds, kill, drainMs: options.drainMs, settle: table.settle }
    let closing = false

    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closing = true
        return stopAll(table.running(), kill)
      })
    )

    const start = Effect.fn("BackgroundBash.start")(function* (command: string, startOptions: StartOptions) {
      if (closing) return yield* closingError()
      const active = table.running().length
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
      const task = table.add(command, startOptions.cwd, shell.pid, log)
      // `start` runs uninterruptibly (so that a spawned process always gets its supervisor), and a
      // fork inherits that: the supervisor must be made interruptible again, or stop would hang.
      task.fiber = yield* Effect.forkDaemon(Effect.interruptible(supervise(task, shell, supervision)))
      if (closing) {
        // The scope began closing while this task was being started: it must not outlive it.
        task.stopping = true
        yield* Fiber.interrupt(task.fiber)
        return yield* closingError()
      }
      return infoOf(task)
    }, Effect.uninterruptible)

    const status = Effect.fn("BackgroundBash.status")(function* (id: string) {
      return infoOf(yield* table.find(id))
    })

    const logs = Effect.fn("BackgroundBash.logs")(function* (id: string, request: LogRequest = {}) {
      return logSlice(yield* table.find(id), request)
    })

    const stop = Effect.fn("BackgroundBash.stop")(function* (id: string) {
      const task = yield* table.find(id)
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
      list: Effect.sync(() => table.all().map(infoOf)),
      logs,
      stop,
      sandbox
    } satisfies BackgroundBashShape
  })
