/**
 * The session's sandboxes (sandbox-session.ts): started on the first sandboxed command, one per
 * set of sandbox arguments (the workspace and the grants decide what is bound; a new /access grant
 * means a new sandbox, and the old one is closed once nothing runs in it), all closed with the
 * scope the pool lives in — the session's. A sandbox that died (a command killed its supervisor,
 * or it stopped answering) is replaced on the next call; one that cannot be started makes the call
 * fail: a sandboxed command never runs without its sandbox.
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { DEFAULT_GRACE_MS } from "./limits.ts"
import { bwrapArgs, hostSocketsToHide, type SandboxRequest } from "./sandbox.ts"
import { SandboxBroken, SessionSandbox, supervisorDirs, type SandboxedCommand } from "./sandbox-session.ts"
import { withoutSocketVariables } from "./sandbox-sockets.ts"
import { SpawnError, type ShellProcess } from "./spawn.ts"

export interface SandboxPool {
  /** Runs `command` in the session's sandbox for `request` (bwrap at `program`), starting it first if needed. */
  readonly spawn: (program: string, request: SandboxRequest, command: SandboxedCommand) => Effect.Effect<ShellProcess, SpawnError>
  /** The sandboxes alive now (tests, diagnostics). */
  readonly sandboxes: () => ReadonlyArray<SessionSandbox>
}

export interface SandboxPoolOptions {
  /** Default 30 s: a first start on a loaded machine may take seconds. */
  readonly startTimeoutMs?: number
  readonly graceMs?: number
}

/** The sandbox's own arguments: those of a per-command bwrap, less the working directory (each command brings its own). */
const argsKey = (args: ReadonlyArray<string>): string => JSON.stringify(args.slice(0, -3))

/**
 * What the command's environment needs inside: TMPDIR on the private /tmp, as sandbox.ts sets it
 * for a per-command bwrap, and no agent socket variable (sandbox-sockets.ts).
 */
export const sandboxedEnvironment = (given: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  const env = withoutSocketVariables(given)
  const tmpdir = env["TMPDIR"]
  if (tmpdir === undefined || tmpdir === "") return env
  const resolved = path.resolve(tmpdir)
  return resolved === "/tmp" || resolved.startsWith("/tmp/") ? env : { ...env, TMPDIR: "/tmp" }
}

export const makeSandboxPool = (options: SandboxPoolOptions = {}): Effect.Effect<SandboxPool, never, Scope.Scope> =>
  Effect.gen(function* () {
    const live = new Map<string, SessionSandbox>()
    let closing = false
    const settings = { startTimeoutMs: options.startTimeoutMs ?? 30_000, graceMs: options.graceMs ?? DEFAULT_GRACE_MS }

    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closing = true
        const all = [...live.values()]
        live.clear()
        return Effect.forEach(all, (sandbox) => sandbox.close(), { concurrency: "unbounded", discard: true })
      })
    )

    const sandboxFor = (program: string, key: string, request: SandboxRequest): SessionSandbox => {
      const current = live.get(key)
      if (current !== undefined && !current.dead) return current
      // The host's sockets as they are now: not part of the key, so a socket bound later starts no new sandbox.
      const made = new SessionSandbox({ program, args: bwrapArgs(request, process.env, hostSocketsToHide(request)), ...settings })
      live.set(key, made)
      // Older sandboxes (other grants) go once idle; the ones still running something stay until the session ends.
      for (const [other, sandbox] of live) {
        if (other !== key && sandbox.running === 0) {
          live.delete(other)
          Effect.runFork(sandbox.close())
        }
      }
      return made
    }

    const attempt = (program: string, request: SandboxRequest, command: SandboxedCommand) =>
      Effect.suspend(() => {
        if (closing) return Effect.fail(new SpawnError({ message: "the session is closing; no sandboxed command can start" }))
        const withSupervisor = { ...request, readable: [...request.readable, ...supervisorDirs()] }
        const args = bwrapArgs(withSupervisor)
        const sandbox = sandboxFor(program, argsKey(args), withSupervisor)
        return sandbox.spawn(command).pipe(
          Effect.tapError((error) =>
            Effect.sync(() => {
              if (error instanceof SandboxBroken && live.get(argsKey(args)) === sandbox) live.delete(argsKey(args))
            })
          )
        )
      })

    const spawn = (program: string, request: SandboxRequest, command: SandboxedCommand): Effect.Effect<ShellProcess, SpawnError> =>
      attempt(program, request, command).pipe(
        // One more try in a new sandbox; then the call fails, and the command never ran.
        Effect.catchIf(
          (error) => error instanceof SandboxBroken,
          () => attempt(program, request, command)
        ),
        Effect.mapError((error) =>
          error instanceof SandboxBroken
            ? new SpawnError({ message: `the OS sandbox could not run the command, so it did not run (${error.message})` })
            : error
        )
      )

    return { spawn, sandboxes: () => [...live.values()] }
  })
