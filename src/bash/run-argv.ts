/**
 * Running a program from an argv list, never through a shell (external exec tools): the leader of
 * its own session and process group like a shell command (spawn.ts), tagged for containment,
 * its stdin fed and closed (or /dev/null), stdout and stderr captured apart with bounded memory,
 * and its whole tree killed on timeout and on interruption (a cancelled turn); after a normal exit,
 * what it left in its process group is killed.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { prepareContainment, taggedEnvironment } from "./containment.ts"
import { DEFAULT_CAPTURE_BYTES, OutputCapture, type ForegroundOutcome } from "./foreground.ts"
import { DEFAULT_GRACE_MS, drainWaitMs } from "./limits.ts"
import { forgetLeader, groupHasMembers, killProcessTree, trackLeader } from "./process-tree.ts"
import { SpawnError, watchExit, type ShellExit } from "./spawn.ts"

export interface RunArgvOptions {
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
  /** Written to stdin, which then closes; undefined = stdin is /dev/null. */
  readonly stdin?: string | undefined
  readonly timeoutSeconds: number
  readonly graceMs?: number
  /** Per stream, head + tail. Default 8 MiB. */
  readonly captureBytes?: number
  readonly drainMs?: number
  /** See SpawnShellOptions.home. */
  readonly home?: string | undefined
}

export interface ArgvResult {
  readonly outcome: ForegroundOutcome
  readonly stdout: string
  readonly stderr: string
  readonly stdoutBytes: number
}

interface Started {
  readonly pid: number
  readonly finished: Effect.Effect<ShellExit>
  readonly result: () => ShellExit | undefined
}

const start = (options: RunArgvOptions, stdout: OutputCapture, stderr: OutputCapture): Effect.Effect<Started, SpawnError> =>
  Effect.zipRight(
    prepareContainment(options.home),
    Effect.async<Started, SpawnError>((resume) => {
      const { env, tag } = taggedEnvironment(options.env)
      const child = spawn(options.file, [...options.args], {
        cwd: options.cwd,
        env,
        detached: true,
        stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        windowsHide: true
      })
      const pid = child.pid
      if (pid === undefined) {
        child.once("error", (error: NodeJS.ErrnoException) => {
          const reason =
            error.code === "ENOENT"
              ? fs.existsSync(options.cwd)
                ? `${options.file} was not found (is it installed and on PATH?)`
                : `the directory ${options.cwd} does not exist`
              : error.code === "EACCES"
                ? `${options.file} is not executable`
                : error.message
          resume(Effect.fail(new SpawnError({ message: `could not start ${options.file}: ${reason}` })))
        })
        return
      }
      trackLeader(pid, tag)
      if (options.stdin !== undefined && child.stdin !== null) {
        // A program that exits without reading its stdin makes the write fail with EPIPE: not our error.
        child.stdin.on("error", () => {})
        child.stdin.end(options.stdin)
      }
      child.stdout?.on("data", stdout.write)
      child.stderr?.on("data", stderr.write)
      resume(Effect.succeed({ pid, ...watchExit(child, options.drainMs) }))
    })
  )

/** Runs the program to its end; a failure is only a start failure (a non-zero exit, a signal or a timeout are outcomes). */
export const runArgv = (options: RunArgvOptions): Effect.Effect<ArgvResult, SpawnError> =>
  Effect.suspend(() => {
    const stdout = new OutputCapture(options.captureBytes ?? DEFAULT_CAPTURE_BYTES)
    const stderr = new OutputCapture(options.captureBytes ?? DEFAULT_CAPTURE_BYTES)
    const kill = { graceMs: options.graceMs ?? DEFAULT_GRACE_MS }
    return Effect.acquireUseRelease(
      start(options, stdout, stderr),
      (child) =>
        Effect.gen(function* () {
          const exit = yield* Effect.timeoutOption(child.finished, Duration.millis(options.timeoutSeconds * 1000))
          if (Option.isSome(exit)) {
            const value = exit.value
            return value.code !== null
              ? ({ _tag: "Exited", code: value.code } satisfies ForegroundOutcome)
              : ({ _tag: "Signaled", signal: value.signal ?? "unknown signal" } satisfies ForegroundOutcome)
          }
          yield* killProcessTree(child.pid, kill)
          yield* Effect.timeoutOption(child.finished, Duration.millis(drainWaitMs(options.drainMs)))
          return { _tag: "TimedOut", seconds: options.timeoutSeconds } satisfies ForegroundOutcome
        }),
      // After a normal exit only the process group is checked (one signal-0 call, no /proc scan: the
      // scan doubled the cost of a short tool call). An escapee that left the group (setsid, double
      // fork) keeps its containment tag and dies with Crystal (the exit hook), not with the call.
      (child) =>
        child.result() === undefined || groupHasMembers(child.pid) ? killProcessTree(child.pid, kill) : Effect.sync(() => forgetLeader(child.pid))
    ).pipe(Effect.map((outcome): ArgvResult => ({ outcome, stdout: stdout.text(), stderr: stderr.text(), stdoutBytes: stdout.totalBytes })))
  })
