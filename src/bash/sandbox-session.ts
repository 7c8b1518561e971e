/**
 * One long-lived bwrap sandbox: bwrap with the arguments of sandbox.ts, running Crystal's own
 * supervisor (sandbox-supervisor.ts) as its command, which forks each sandboxed shell command
 * inside. Per command that costs a fork and an exec in the sandbox and a few frames on two pipes,
 * instead of a new bwrap (three processes and a mount namespace built from scratch).
 *
 * The host stays in charge of every command as it is of an unsandboxed one: it learns the
 * command's host pid (its pid inside is namespace-local) from /proc before letting it run, tracks
 * it and its tag for the exit hook (process-tree.ts), and kills its tree by host pids. bwrap
 * itself is tracked the same way, and runs with --die-with-parent: the sandbox and everything in
 * it die with Crystal, even a Crystal killed with SIGKILL.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import type { RedactingSink } from "../secrets/redact.ts"
import { DEFAULT_DRAIN_MS } from "./limits.ts"
import { CONTAIN_VAR, killProcessTree, nextTag, trackLeader } from "./process-tree.ts"
import { CANCEL, CLOSED, encodeFrame, encodeJson, EXIT, FAILED, FrameReader, GO, OUTPUT, READY, RELEASE, RUN, STARTED, type Frame, type RunRequest } from "./sandbox-protocol.ts"
import { SpawnError, type ShellExit, type ShellProcess } from "./spawn.ts"
import { messageOf } from "../text/error-text.ts"

/** How one command is started in the sandbox; spawn.ts fills it in. */
export interface SandboxedCommand {
  /** The shell and its arguments (`-c`, the gated script). */
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  /** The command's containment tag (already in `env`). */
  readonly tag: string
  /** Where the output goes, the session's secrets already redacted (spawn.ts makes it). */
  readonly output: RedactingSink
  readonly drainMs?: number | undefined
}

/** The sandbox ended, or never answered, before the command started: worth one try in a new sandbox. */
export class SandboxBroken extends Error {}

/** How Crystal runs itself as the supervisor: the compiled binary, or main.ts from source (under Bun). */
export const supervisorCommand = (): { readonly file: string; readonly args: ReadonlyArray<string> } => {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const main = path.join(here, "..", "main.ts")
  if (!fs.existsSync(main)) return { file: process.execPath, args: ["__sandbox-supervisor"] }
  // From source: Bun runs TypeScript; Node (the tests' runner) does not, so the repository's Bun does.
  const bun = (globalThis as { readonly Bun?: unknown }).Bun !== undefined ? process.execPath : path.join(here, "..", "..", "node_modules", ".bin", "bun")
  return { file: bun, args: [main, "__sandbox-supervisor"] }
}

/**
 * The directories the supervisor runs from (the binary's, or the repository and its Bun): they must
 * stay visible inside the sandbox when they lie under a masked directory, e.g. a checkout in /tmp.
 */
export const supervisorDirs = (): ReadonlyArray<string> => {
  const { file, args } = supervisorCommand()
  const real = (target: string): string => {
    try {
      return fs.realpathSync(target)
    } catch {
      return target
    }
  }
  const main = args.length > 1 ? args[0] : undefined
  return [...new Set([path.dirname(real(file)), ...(main === undefined ? [] : [path.dirname(path.dirname(real(main)))])])]
}

const readText = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "latin1")
  } catch {
    return undefined
  }
}

/** Host pids of `pid`'s children by their parent pid, for a kernel without /proc/PID/task/TID/children. */
const childrenByScan = (pid: number): Array<number> => {
  const found: Array<number> = []
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    const stat = readText(`/proc/${name}/stat`)
    if (stat !== undefined && stat.slice(stat.lastIndexOf(")") + 2).split(" ", 2)[1] === String(pid)) found.push(Number(name))
  }
  return found
}

/** Host pids of `pid`'s children, over all its threads (a runtime may spawn from any of them). */
const childrenOf = (pid: number): Array<number> => {
  const main = readText(`/proc/${pid}/task/${pid}/children`)
  if (main === undefined && fs.existsSync(`/proc/${pid}`)) return childrenByScan(pid)
  const found = main === undefined ? [] : main.split(" ").filter((word) => word !== "").map(Number)
  let tasks: Array<string>
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return found
  }
  for (const task of tasks) {
    if (task === String(pid)) continue
    for (const word of (readText(`/proc/${pid}/task/${task}/children`) ?? "").split(" ")) if (word !== "") found.push(Number(word))
  }
  return found
}

/** The pids of a process in each pid namespace it belongs to, outermost first (`NSpid:`). */
const nsPids = (pid: number): Array<number> => {
  const status = readText(`/proc/${pid}/status`) ?? ""
  const line = /^NSpid:\s*(.*)$/m.exec(status)?.[1] ?? ""
  return line.split(/\s+/).filter((word) => word !== "").map(Number)
}

/** The host pid of the child of `parent` whose pid in the sandbox's namespace is `inner`. */
const childWithInnerPid = (parent: number, inner: number, firstChoice: boolean): number | undefined => {
  const main = firstChoice ? readText(`/proc/${parent}/task/${parent}/children`) : undefined
  const children = main !== undefined ? main.split(" ").filter((word) => word !== "").map(Number) : childrenOf(parent)
  for (const child of children) {
    const pids = nsPids(child)
    if (pids.length > 1 && pids[pids.length - 1] === inner) return child
  }
  return main !== undefined ? childWithInnerPid(parent, inner, false) : undefined
}

/** The supervisor's host pid: a descendant of bwrap (a few levels down) with that pid inside. */
const findSupervisor = (bwrap: number, inner: number): number | undefined => {
  let level = [bwrap]
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    const next: Array<number> = []
    for (const pid of level) {
      for (const child of childrenOf(pid)) {
        const pids = nsPids(child)
        if (pids.length > 1 && pids[pids.length - 1] === inner) return child
        next.push(child)
      }
    }
    level = next
  }
  return undefined
}

interface Pending {
  readonly command: SandboxedCommand
  readonly started: (shell: ShellProcess) => void
  readonly failed: (error: SpawnError | SandboxBroken) => void
}

/** A started command: its output, exit and pipes, finished as spawn.ts finishes a bare one. */
class Watched {
  exit: ShellExit | undefined
  done: ShellExit | undefined
  closed = false
  private drainTimer: ReturnType<typeof setTimeout> | undefined
  readonly waiting = new Set<(exit: ShellExit) => void>()
  readonly output: RedactingSink
  private readonly command: SandboxedCommand
  private readonly release: () => void

  constructor(command: SandboxedCommand, release: () => void) {
    this.command = command
    this.release = release
    this.output = command.output
  }

  onExit(exit: ShellExit): void {
    if (this.exit !== undefined) return
    this.exit = exit
    if (this.closed) this.finish()
    else this.drainTimer = setTimeout(() => this.finish(), this.command.drainMs ?? DEFAULT_DRAIN_MS)
  }

  onClosed(): void {
    this.closed = true
    this.finish()
  }

  finish(): void {
    if (this.done !== undefined || this.exit === undefined) return
    this.done = this.exit
    if (this.drainTimer !== undefined) clearTimeout(this.drainTimer)
    this.output.flush()
    this.release()
    for (const notify of this.waiting) notify(this.done)
    this.waiting.clear()
  }

  shell(pid: number): ShellProcess {
    return {
      pid,
      result: () => this.done,
      finished: Effect.async<ShellExit>((resume) => {
        if (this.done !== undefined) return resume(Effect.succeed(this.done))
        const notify = (value: ShellExit) => resume(Effect.succeed(value))
        this.waiting.add(notify)
        return Effect.sync(() => this.waiting.delete(notify))
      })
    }
  }
}

export interface SessionSandboxOptions {
  /** bwrap, and its arguments up to and including `--`. */
  readonly program: string
  readonly args: ReadonlyArray<string>
  /** How long a command may wait for the sandbox to start it before the sandbox counts as broken. */
  readonly startTimeoutMs: number
  /** SIGTERM → SIGKILL delay when the sandbox is closed. */
  readonly graceMs: number
}

/** Kept from the sandbox's own stderr (bwrap's complaints, a supervisor that crashed). */
const STDERR_KEPT = 2000

export class SessionSandbox {
  private readonly child: ChildProcess
  private readonly bwrapPid: number | undefined
  private supervisor: number | undefined
  private readonly pending = new Map<number, Pending>()
  private readonly watched = new Map<number, Watched>()
  private readonly reader = new FrameReader()
  private sequence = 0
  private stderr = ""
  /** Set once the sandbox ended (or was found broken): nothing more runs in it. */
  dead = false
  /** The supervisor could make itself non-dumpable (it runs under Bun). */
  guarded = false

  private readonly options: SessionSandboxOptions

  constructor(options: SessionSandboxOptions) {
    this.options = options
    const supervisor = supervisorCommand()
    const tag = nextTag()
    const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", [CONTAIN_VAR]: tag, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" }
    // The supervisor is the namespace's pid 1: no bwrap reaper there holding copies of its pipes
    // to the host (open through /proc/1/fd by any command), and signals from inside cannot kill it.
    const args = [...options.args.slice(0, -1), "--as-pid-1", ...options.args.slice(-1)]
    this.child = spawn(options.program, [...args, supervisor.file, ...supervisor.args], {
      env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true
    })
    this.bwrapPid = this.child.pid
    if (this.bwrapPid !== undefined) trackLeader(this.bwrapPid, tag)
    this.child.on("error", (error) => this.end(`could not start ${options.program}: ${error.message}`))
    this.child.stdin?.on("error", () => {})
    this.child.stdout?.on("data", (chunk: Buffer) => {
      try {
        this.reader.push(chunk, (frame) => this.onFrame(frame))
      } catch (error) {
        this.end(`the sandbox's supervisor broke the protocol (${messageOf(error)})`)
        this.kill()
      }
    })
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_KEPT)
    })
    this.child.once("close", (code, signal) => this.end(`the sandbox ended (${signal ?? `exit ${code}`})`))
  }

  /** bwrap's host pid (tests, diagnostics). */
  get pid(): number | undefined {
    return this.bwrapPid
  }

  /** The supervisor's host pid, once it said it is ready. */
  get supervisorPid(): number | undefined {
    return this.supervisor
  }

  get running(): number {
    return this.pending.size + this.watched.size
  }

  private write(frame: Buffer): void {
    if (!this.dead) this.child.stdin?.write(frame)
  }

  private reason(fallback: string): string {
    const said = this.stderr.trim().split("\n").filter((line) => line.trim() !== "")[0]
    return said === undefined ? fallback : `${fallback}: ${said}`
  }

  private onFrame(frame: Frame): void {
    const json = (): Record<string, unknown> => JSON.parse(frame.payload.toString("utf8")) as Record<string, unknown>
    switch (frame.kind) {
      case READY: {
        const ready = json()
        this.guarded = ready["guarded"] === true
        if (this.bwrapPid !== undefined) this.supervisor = findSupervisor(this.bwrapPid, Number(ready["pid"]))
        return
      }
      case STARTED:
        return this.onStarted(frame.id, Number(json()["pid"]))
      case FAILED: {
        const pending = this.pending.get(frame.id)
        if (pending === undefined) return
        this.pending.delete(frame.id)
        const failure = json()
        const reason =
          failure["code"] === "ENOENT" && !fs.existsSync(pending.command.cwd) ? `the directory ${pending.command.cwd} does not exist` : String(failure["message"])
        return pending.failed(new SpawnError({ message: `could not start ${pending.command.file}: ${reason}` }))
      }
      case OUTPUT:
        return this.watched.get(frame.id)?.output.write(Buffer.from(frame.payload))
      case EXIT: {
        const exit = json()
        return this.watched.get(frame.id)?.onExit({
          code: typeof exit["code"] === "number" ? exit["code"] : null,
          signal: typeof exit["signal"] === "string" ? (exit["signal"] as NodeJS.Signals) : null
        })
      }
      case CLOSED:
        return this.watched.get(frame.id)?.onClosed()
    }
  }

  private onStarted(id: number, inner: number): void {
    const pending = this.pending.get(id)
    if (pending === undefined) return
    this.pending.delete(id)
    const pid = this.supervisor === undefined ? undefined : childWithInnerPid(this.supervisor, inner, true)
    if (pid === undefined) {
      // Never run what we could not kill: it is still waiting for GO.
      this.write(encodeFrame(CANCEL, id))
      return pending.failed(new SandboxBroken(this.supervisor === undefined ? "the sandbox's supervisor was not found in /proc" : "the command was not found in /proc"))
    }
    trackLeader(pid, pending.command.tag)
    const watched = new Watched(pending.command, () => {
      this.watched.delete(id)
      this.write(encodeFrame(RELEASE, id))
    })
    this.watched.set(id, watched)
    this.write(encodeFrame(GO, id))
    pending.started(watched.shell(pid))
  }

  /** Marks the sandbox dead: commands not started yet fail, started ones end as killed (the namespace's end killed them). */
  private end(why: string): void {
    if (this.dead) return
    this.dead = true
    const reason = this.reason(why)
    for (const pending of this.pending.values()) pending.failed(new SandboxBroken(reason))
    this.pending.clear()
    for (const watched of [...this.watched.values()]) {
      watched.onExit({ code: null, signal: "SIGKILL" })
      watched.onClosed()
    }
    this.watched.clear()
  }

  private kill(): void {
    if (this.bwrapPid === undefined) return
    try {
      process.kill(-this.bwrapPid, "SIGKILL")
    } catch {
      // Gone already.
    }
  }

  /** Starts a command; fails with SandboxBroken when the sandbox cannot (try a new one), SpawnError when the command cannot. */
  spawn(command: SandboxedCommand): Effect.Effect<ShellProcess, SpawnError | SandboxBroken> {
    return Effect.async<ShellProcess, SpawnError | SandboxBroken>((resume) => {
      if (this.dead) return resume(Effect.fail(new SandboxBroken(this.reason("the sandbox ended"))))
      const id = ++this.sequence
      const timer = setTimeout(() => {
        if (!this.pending.has(id)) return
        // Stopped (SIGSTOP) or hung: nothing more goes in there.
        this.end(`the sandbox did not start the command within ${this.options.startTimeoutMs / 1000} s`)
        this.kill()
      }, this.options.startTimeoutMs)
      this.pending.set(id, {
        command,
        started: (shell) => {
          clearTimeout(timer)
          resume(Effect.succeed(shell))
        },
        failed: (error) => {
          clearTimeout(timer)
          resume(Effect.fail(error))
        }
      })
      const request: RunRequest = { cwd: command.cwd, env: command.env, file: command.file, args: command.args }
      this.write(encodeJson(RUN, id, request))
      return Effect.sync(() => {
        clearTimeout(timer)
        if (this.pending.delete(id)) this.write(encodeFrame(CANCEL, id))
      })
    })
  }

  /** Ends the sandbox and waits until every process in it is gone. */
  close(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.child.stdin?.end()
      const pid = this.bwrapPid
      return pid === undefined ? Effect.void : killProcessTree(pid, { graceMs: this.options.graceMs })
    })
  }
}
