/**
 * The supervisor inside a session's sandbox (`crystal __sandbox-supervisor`, started by
 * sandbox-session.ts under bwrap): it forks each sandboxed command the host sends it, as the
 * leader of its own session, and relays its output, exit and pipe closing back in frames
 * (sandbox-protocol.ts). It kills nothing itself: the host kills a command's tree by its host
 * pids, as it does for an unsandboxed one. Each command waits on its stdin for GO (sent once the
 * host has its host pid), so that even a command that exits at once is tracked before it runs.
 *
 * It is the namespace's pid 1 (bwrap --as-pid-1), so no bwrap reaper inside holds copies of its
 * pipes, and the kernel drops every signal a command sends it (pid 1 gets only the signals it
 * handles: the runtime's crash handlers are set to ignore for that); it reaps the orphans it
 * inherits. It makes itself non-dumpable, so a sandboxed command (same user, no capabilities) can
 * neither ptrace it nor open its /proc files: its pipes to the host, its memory (the commands'
 * environments and output) stay out of reach. It exits when its stdin ends (Crystal closed the
 * session or died); the sandbox's pid namespace then ends, and every process in it with it.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import { CANCEL, CLOSED, encodeFrame, encodeJson, EXIT, FAILED, FrameReader, GO, OUTPUT, READY, RELEASE, RUN, STARTED, type RunRequest } from "./sandbox-protocol.ts"

const PR_SET_DUMPABLE = 4

interface FfiModule {
  readonly dlopen: (
    name: string,
    symbols: Record<string, { readonly args: ReadonlyArray<string>; readonly returns: string }>
  ) => { readonly symbols: Record<string, (...args: ReadonlyArray<number>) => number> }
}

interface Libc {
  readonly prctl: (option: number, a: number, b: number, c: number, d: number) => number
  /** waitpid(pid, NULL, options) */
  readonly waitpid: (pid: number, status: number, options: number) => number
  /** signal(number, SIG_IGN) */
  readonly ignore: (signal: number) => number
}

/**
 * libc through bun:ffi; undefined where that is not possible (Node). Not src/files/libc.ts's
 * loader: this module is a chunk of its own (src/main.ts imports it for `__sandbox-supervisor`),
 * and a module it shared with the start-up code would be split into a chunk of its own that
 * `crystal run` then loads too (test/unit/startup-bundle.test.ts).
 */
const loadLibc = async (): Promise<Libc | undefined> => {
  if ((globalThis as { readonly Bun?: unknown }).Bun === undefined) return undefined
  const moduleName = "bun:ffi"
  try {
    const ffi = (await import(moduleName)) as FfiModule
    for (const libc of ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]) {
      try {
        const symbols = ffi.dlopen(libc, {
          prctl: { args: ["i32", "u64", "u64", "u64", "u64"], returns: "i32" },
          waitpid: { args: ["i32", "u64", "i32"], returns: "i32" },
          signal: { args: ["i32", "u64"], returns: "u64" }
        }).symbols
        return {
          prctl: (...args) => symbols["prctl"]!(...args),
          waitpid: (...args) => symbols["waitpid"]!(...args),
          ignore: (signal) => symbols["signal"]!(signal, SIG_IGN)
        }
      } catch {
        // Not this libc's name.
      }
    }
  } catch {
    // No FFI here.
  }
  return undefined
}

const WNOHANG = 1
const SIG_IGN = 1
/**
 * SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV: the runtime's crash reporter handles them,
 * and a handled signal reaches a namespace's pid 1 from inside (an unhandled one is dropped), so
 * `kill -SEGV 1` from a command would end the sandbox. Ignored, a kill from inside is dropped; a
 * real fault still kills (the kernel forces the default action for it).
 */
const CRASH_SIGNALS = [4, 5, 6, 7, 8, 11]

/**
 * As the namespace's pid 1 we inherit every orphan: reap those that died (leftovers the host
 * killed), none of the children the runtime itself still waits for (`own`).
 */
const reapOrphans = (libc: Libc, own: ReadonlySet<number>): void => {
  let names: Array<string>
  try {
    names = fs.readdirSync("/proc")
  } catch {
    return
  }
  for (const name of names) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid <= 1 || own.has(pid)) continue
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 2)
      if (fields[0] === "Z" && fields[1] === String(process.pid)) libc.waitpid(pid, 0, WNOHANG)
    } catch {
      // Gone meanwhile.
    }
  }
}

/** A command the supervisor started, whichever runtime API started it. */
interface Running {
  readonly pid: number
  /** Lets it run: a line on its stdin, then end of file. */
  readonly go: () => void
  readonly kill: () => void
  /** Stops reading its pipes. */
  readonly release: () => void
  readonly pause: () => void
  readonly resume: () => void
}

interface Callbacks {
  readonly output: (chunk: Uint8Array) => void
  readonly exit: (code: number | null, signal: string | null) => void
  /** Both pipes closed. */
  readonly closed: () => void
}

interface BunSubprocess {
  readonly pid: number
  readonly stdin: { write(data: string): void; end(): void }
  readonly stdout: ReadableStream<Uint8Array>
  readonly stderr: ReadableStream<Uint8Array>
  readonly signalCode: string | null
  kill(signal?: string): void
}

interface BunSpawn {
  readonly spawn: (options: {
    readonly cmd: Array<string>
    readonly cwd: string
    readonly env: Readonly<Record<string, string>>
    readonly stdin: "pipe"
    readonly stdout: "pipe"
    readonly stderr: "pipe"
    readonly detached: boolean
    readonly onExit: (process: BunSubprocess, code: number | null) => void
  }) => BunSubprocess
}

/** Bun's own spawn: about half the supervisor's CPU per command of node:child_process's streams there. */
const startWithBun = (bun: BunSpawn, request: RunRequest, on: Callbacks): Running => {
  const child = bun.spawn({
    cmd: [request.file, ...request.args],
    cwd: request.cwd,
    env: request.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
    onExit: (process, code) => on.exit(process.signalCode === null ? code : null, process.signalCode)
  })
  let open = 2
  let paused: (() => void) | undefined
  let waiting: Promise<void> | undefined
  const readers = [child.stdout.getReader(), child.stderr.getReader()]
  for (const reader of readers) {
    void (async () => {
      try {
        for (;;) {
          if (waiting !== undefined) await waiting
          const { done, value } = await reader.read()
          if (done) break
          on.output(value)
        }
      } catch {
        // Cancelled by release.
      }
      if (--open === 0) on.closed()
    })()
  }
  return {
    pid: child.pid,
    go: () => {
      child.stdin.write("\n")
      child.stdin.end()
    },
    kill: () => child.kill("SIGKILL"),
    release: () => {
      for (const reader of readers) void reader.cancel().catch(() => {})
    },
    pause: () => {
      waiting ??= new Promise((resolve) => (paused = resolve))
    },
    resume: () => {
      paused?.()
      paused = undefined
      waiting = undefined
    }
  }
}

/** node:child_process, where there is no Bun (the supervisor run by Node). */
const startWithNode = (request: RunRequest, on: Callbacks): Running => {
  const child: ChildProcess = spawn(request.file, [...request.args], { cwd: request.cwd, env: request.env, detached: true, stdio: ["pipe", "pipe", "pipe"] })
  if (child.pid === undefined) {
    // Node reports a failed spawn (a missing cwd) as an event; turn it into the throw Bun makes.
    throw Object.assign(new Error(`spawn ${request.file} ENOENT`), { code: "ENOENT" })
  }
  child.on("error", () => {})
  child.stdin?.on("error", () => {})
  let open = 2
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on("data", on.output)
    stream?.once("close", () => {
      if (--open === 0) on.closed()
    })
  }
  child.once("exit", (code, signal) => on.exit(code, signal))
  return {
    pid: child.pid,
    go: () => child.stdin?.end("\n"),
    kill: () => child.kill("SIGKILL"),
    release: () => {
      child.stdout?.destroy()
      child.stderr?.destroy()
    },
    pause: () => {
      child.stdout?.pause()
      child.stderr?.pause()
    },
    resume: () => {
      child.stdout?.resume()
      child.stderr?.resume()
    }
  }
}

export const runSupervisor = async (): Promise<void> => {
  const libc = await loadLibc()
  // Reported to the host: without it a command could write frames on our pipes (Node has no FFI).
  const guarded = libc !== undefined && libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) === 0
  for (const signal of CRASH_SIGNALS) libc?.ignore(signal)
  const bun = (globalThis as unknown as { readonly Bun?: BunSpawn & { readonly unsafe?: { readonly setJITPolicy?: (scale: number) => void } } }).Bun
  // The compiled binary starts with a lazy JIT (layers/runtime.ts startupComplete); this loop runs hot.
  bun?.unsafe?.setJITPolicy?.(1)
  const commands = new Map<number, Running>()
  /** Our children not reaped yet by the runtime (ns pids). */
  const unreaped = new Set<number>()
  if (libc !== undefined) setInterval(() => reapOrphans(libc, unreaped), 1000).unref()
  const out = process.stdout
  let blocked = false
  const send = (frame: Buffer): void => {
    if (out.write(frame) || blocked) return
    // The host reads slower than the commands write: hold their pipes until it caught up.
    blocked = true
    for (const command of commands.values()) command.pause()
  }
  out.on("drain", () => {
    blocked = false
    for (const command of commands.values()) command.resume()
  })
  out.on("error", () => process.exit(0))

  const run = (id: number, request: RunRequest): void => {
    let pid = 0
    const callbacks: Callbacks = {
      output: (chunk) => {
        if (commands.has(id)) send(encodeFrame(OUTPUT, id, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)))
      },
      exit: (code, signal) => {
        unreaped.delete(pid)
        if (commands.has(id)) send(encodeJson(EXIT, id, { code, signal }))
      },
      closed: () => {
        if (commands.has(id)) send(encodeFrame(CLOSED, id))
      }
    }
    let command: Running
    try {
      command = bun === undefined ? startWithNode(request, callbacks) : startWithBun(bun, request, callbacks)
    } catch (error) {
      const failure = error as NodeJS.ErrnoException
      send(encodeJson(FAILED, id, { code: failure.code ?? "", message: failure.message }))
      return
    }
    pid = command.pid
    unreaped.add(pid)
    commands.set(id, command)
    if (blocked) command.pause()
    send(encodeJson(STARTED, id, { pid }))
  }

  const reader = new FrameReader()
  process.stdin.on("data", (chunk: Buffer) => {
    try {
      reader.push(chunk, (frame) => {
        const command = commands.get(frame.id)
        if (frame.kind === RUN) run(frame.id, JSON.parse(frame.payload.toString("utf8")) as RunRequest)
        else if (frame.kind === GO) command?.go()
        else if (frame.kind === CANCEL) {
          command?.kill()
          commands.delete(frame.id)
        } else if (frame.kind === RELEASE && command !== undefined) {
          commands.delete(frame.id)
          command.release()
        }
      })
    } catch {
      process.exit(2)
    }
  })
  process.stdin.on("end", () => process.exit(0))
  send(encodeJson(READY, 0, { pid: process.pid, guarded }))
}
