/**
 * Starting a shell command: `/bin/bash -c` (or `/bin/sh -c` where bash is missing) as the leader of
 * its own session and process group, stdin closed (/dev/null: a read sees end of file at once),
 * stdout and stderr read continuously (a full pipe would block the child) and handed to the caller
 * chunk by chunk, in arrival order.
 *
 * The command runs after `exec 2>&1; ` on the same line (so error line numbers do not move): its
 * stderr then shares stdout's pipe and the two interleave exactly as they were written, as with
 * `cmd 2>&1` in a terminal. The stderr pipe still carries what the shell reports before that
 * (a syntax error in the command).
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DEFAULT_DRAIN_MS, defaultShell } from "./limits.ts"
import { redactingSink } from "../secrets/redact.ts"
import type { Secrets } from "../secrets/secrets.ts"
import { prepareContainment, taggedEnvironment } from "./containment.ts"
import { trackLeader } from "./process-tree.ts"
import { sandboxedArgv, sandboxStatus, type SandboxRequest } from "./sandbox.ts"
import { sandboxedEnvironment, type SandboxPool } from "./sandbox-pool.ts"
import { withoutSocketVariables } from "./sandbox-sockets.ts"

const definedOnly = (env: NodeJS.ProcessEnv): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value
  return out
}

/** The shell could not be started (missing working directory, no shell, too many processes). */
export class SpawnError extends Schema.TaggedError<SpawnError>()("SpawnError", {
  message: Schema.String
}) {}


export interface ShellExit {
  /** The shell's exit code, or null when a signal ended it. */
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface SpawnShellOptions {
  readonly command: string
  readonly cwd: string
  readonly env?: NodeJS.ProcessEnv
  /** Defaults to `defaultShell()`. */
  readonly shell?: string
  /** Every chunk of stdout or stderr, as it arrives, `secrets` already redacted. */
  readonly onOutput: (chunk: Buffer) => void
  /** The session's secrets as the command starts (its Redactor's, read by the caller). */
  readonly secrets: Secrets
  /** Crystal's home: the first spawn writes this crystal's pid file under it (containment.ts). */
  readonly home?: string | undefined
  /**
   * After the shell exits, how long to keep reading output that processes it left behind still
   * write (they hold the pipes open). Default 200 ms.
   */
  readonly drainMs?: number
  /** Run inside the OS sandbox (sandbox.ts) when one is available; without one, run as usual. */
  readonly sandbox?: SandboxRequest | undefined
  /**
   * The session's long-lived sandboxes (sandbox-pool.ts): with bwrap, a sandboxed command is forked
   * inside the session's sandbox instead of starting a bwrap of its own. Without a pool (or with
   * sandbox-exec), each sandboxed command gets its own sandbox.
   */
  readonly sandboxPool?: SandboxPool | undefined
}

export interface ShellProcess {
  /** The shell's pid, which is also its process group and session id. */
  readonly pid: number
  /**
   * Completes once the shell has exited and its output has been read: both pipes closed, or
   * `drainMs` passed since the exit (reading then stops). Interrupting the wait does not kill anything.
   */
  readonly finished: Effect.Effect<ShellExit>
  /** The exit, once `finished` has completed. */
  readonly result: () => ShellExit | undefined
}

/**
 * Starts the shell. Run it where interruption cannot land between the spawn and the code that
 * takes charge of the process (an acquire step, or `Effect.uninterruptible`): the process is then
 * always killed by someone. Its leader is also tracked for the exit hook in process-tree.ts.
 */
export const spawnShell = (options: SpawnShellOptions): Effect.Effect<ShellProcess, SpawnError> =>
  Effect.zipRight(prepareContainment(options.home), Effect.suspend(() => {
    const shell = options.shell ?? defaultShell()
    const { env, tag } = taggedEnvironment(options.env ?? process.env)
    const status = options.sandbox === undefined || options.sandboxPool === undefined ? undefined : sandboxStatus()
    if (options.sandbox === undefined || options.sandboxPool === undefined || status?.available !== true || status.kind !== "bwrap") {
      return spawnOwnProcess(options, shell, env, tag)
    }
    // The command waits on its stdin until the host has its host pid (sandbox-supervisor.ts); a
    // shell that is not let go never runs it.
    const gated = `read -r _ || exit 126; exec 0</dev/null 2>&1; ${options.command}`
    return options.sandboxPool.spawn(status.program, options.sandbox, {
      file: shell,
      args: [...noStartupFiles(shell), "-c", gated],
      cwd: options.cwd,
      env: sandboxedEnvironment(definedOnly(env)),
      tag,
      output: redactingSink(options.secrets, options.onOutput),
      drainMs: options.drainMs
    })
  }))

/**
 * The supervisor gives each command a socket as its stdin (Bun's pipes are socket pairs), and bash
 * takes a non-interactive shell whose stdin is a socket, with SHLVL unset, for one started by sshd:
 * it runs ~/.bashrc first. `--norc` keeps the command alone, as it is on the bare path (stdin /dev/null).
 */
const noStartupFiles = (shell: string): ReadonlyArray<string> => (path.basename(shell) === "bash" ? ["--norc"] : [])

/**
 * How a child ends: its exit, once its pipes are closed (or `drainMs` after the exit, when leftover
 * processes still hold them). `beforeFinish` runs first (flushing what was read); then the pipes are
 * no longer read and every waiter hears the exit.
 */
export const watchExit = (
  child: ChildProcess,
  drainMs: number | undefined,
  beforeFinish: () => void = () => {}
): { readonly result: () => ShellExit | undefined; readonly finished: Effect.Effect<ShellExit> } => {
  let exit: ShellExit | undefined
  let done: ShellExit | undefined
  let drainTimer: ReturnType<typeof setTimeout> | undefined
  const waiting = new Set<(exit: ShellExit) => void>()
  const finish = (): void => {
    if (done !== undefined || exit === undefined) return
    done = exit
    if (drainTimer !== undefined) clearTimeout(drainTimer)
    beforeFinish()
    // Leftover processes may still hold the pipes: stop reading them.
    child.stdout?.destroy()
    child.stderr?.destroy()
    for (const notify of waiting) notify(done)
    waiting.clear()
  }
  // After a successful spawn an 'error' can only come from a failed kill(); ours go through
  // process.kill, so there is nothing to do, but an unhandled 'error' event would throw.
  child.on("error", () => {})
  let closed = false
  child.once("exit", (code, signal) => {
    exit = { code, signal }
    if (closed) finish()
    else drainTimer = setTimeout(finish, drainMs ?? DEFAULT_DRAIN_MS)
  })
  child.once("close", () => {
    closed = true
    finish()
  })
  return {
    result: () => done,
    finished: Effect.async<ShellExit>((resume) => {
      if (done !== undefined) return resume(Effect.succeed(done))
      const notify = (value: ShellExit) => resume(Effect.succeed(value))
      waiting.add(notify)
      return Effect.sync(() => waiting.delete(notify))
    })
  }
}

/** The shell as a child of this process: bare, or in a sandbox of its own (sandbox.ts). */
const spawnOwnProcess = (options: SpawnShellOptions, shell: string, env: NodeJS.ProcessEnv, tag: string): Effect.Effect<ShellProcess, SpawnError> =>
  Effect.async<ShellProcess, SpawnError>((resume) => {
    const shellArgs = ["-c", `exec 2>&1; ${options.command}`]
    const sandboxed = options.sandbox === undefined ? undefined : sandboxedArgv(options.sandbox, shell, shellArgs)
    const child = spawn(sandboxed?.file ?? shell, sandboxed?.args ?? shellArgs, {
      cwd: options.cwd,
      env: sandboxed === undefined ? env : withoutSocketVariables(env),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true
    })

    const pid = child.pid
    if (pid === undefined) {
      child.once("error", (error: NodeJS.ErrnoException) => {
        const reason = error.code === "ENOENT" && !fs.existsSync(options.cwd) ? `the directory ${options.cwd} does not exist` : error.message
        resume(Effect.fail(new SpawnError({ message: `could not start ${shell}: ${reason}` })))
      })
      return
    }
    trackLeader(pid, tag)

    const output = redactingSink(options.secrets, options.onOutput)
    child.stdout?.on("data", output.write)
    child.stderr?.on("data", output.write)
    const watched = watchExit(child, options.drainMs, output.flush)

    resume(
      Effect.succeed({
        pid,
        ...watched
      })
    )
  })
