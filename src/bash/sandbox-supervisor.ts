/**
 * The supervisor inside a session's sandbox (`crystal __sandbox-supervisor`, started by
 * sandbox-session.ts under bwrap): it forks each sandboxed command the host sends it, as the
 * leader of its own session, and relays its output, exit and pipe closing back in frames
 * (sandbox-protocol.ts). It kills nothing itself: the host kills a command's tree by its host
 * pids, as it does for an unsandboxed one. Each command waits on its stdin for GO (sent once the
 * host has its host pid), so that even a command that exits at once is tracked before it runs.
 *
 * The supervisor makes itself non-dumpable, so a sandboxed command (same user, no capabilities)
 * can neither ptrace it nor open its /proc files: its pipes to the host, its memory (the commands'
 * environments and output) stay out of reach. It exits when its stdin ends (Crystal closed the
 * session or died); the sandbox's pid namespace then ends, and every process in it with it.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { CANCEL, CLOSED, encodeFrame, encodeJson, EXIT, FAILED, FrameReader, GO, OUTPUT, READY, RELEASE, RUN, STARTED, type RunRequest } from "./sandbox-protocol.ts"

const PR_SET_DUMPABLE = 4

interface FfiModule {
  readonly dlopen: (
    name: string,
    symbols: Record<string, { readonly args: ReadonlyArray<string>; readonly returns: string }>
  ) => { readonly symbols: Record<string, (...args: ReadonlyArray<number>) => number> }
}

/** prctl(PR_SET_DUMPABLE, 0) through bun:ffi; false where that is not possible (Node). */
const becomeUndumpable = async (): Promise<boolean> => {
  if ((globalThis as { readonly Bun?: unknown }).Bun === undefined) return false
  const moduleName = "bun:ffi"
  try {
    const ffi = (await import(moduleName)) as FfiModule
    for (const libc of ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]) {
      try {
        const lib = ffi.dlopen(libc, { prctl: { args: ["i32", "u64", "u64", "u64", "u64"], returns: "i32" } })
        return lib.symbols["prctl"]!(PR_SET_DUMPABLE, 0, 0, 0, 0) === 0
      } catch {
        // Not this libc's name.
      }
    }
  } catch {
    // No FFI here.
  }
  return false
}

interface Running {
  readonly child: ChildProcess
  open: number
}

export const runSupervisor = async (): Promise<void> => {
  // Reported to the host: without it a command could write frames on our pipes (Node has no FFI).
  const guarded = await becomeUndumpable()
  const commands = new Map<number, Running>()
  const out = process.stdout
  let blocked = false
  const send = (frame: Buffer): void => {
    if (out.write(frame) || blocked) return
    // The host reads slower than the commands write: hold their pipes until it caught up.
    blocked = true
    for (const command of commands.values()) {
      command.child.stdout?.pause()
      command.child.stderr?.pause()
    }
  }
  out.on("drain", () => {
    blocked = false
    for (const command of commands.values()) {
      command.child.stdout?.resume()
      command.child.stderr?.resume()
    }
  })
  out.on("error", () => process.exit(0))

  const run = (id: number, request: RunRequest): void => {
    let child: ChildProcess
    try {
      child = spawn(request.file, [...request.args], {
        cwd: request.cwd,
        env: request.env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"]
      })
    } catch (error) {
      const failure = error as NodeJS.ErrnoException
      send(encodeJson(FAILED, id, { code: failure.code ?? "", message: failure.message }))
      return
    }
    if (child.pid === undefined) {
      child.once("error", (error: NodeJS.ErrnoException) => send(encodeJson(FAILED, id, { code: error.code ?? "", message: error.message })))
      return
    }
    const command: Running = { child, open: 2 }
    commands.set(id, command)
    child.on("error", () => {})
    child.stdin?.on("error", () => {})
    const relay = (chunk: Buffer): void => {
      if (commands.has(id)) send(encodeFrame(OUTPUT, id, chunk))
    }
    const closed = (): void => {
      if (--command.open === 0 && commands.has(id)) send(encodeFrame(CLOSED, id))
    }
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on("data", relay)
      stream?.once("close", closed)
      if (blocked) stream?.pause()
    }
    child.once("exit", (code, signal) => {
      if (commands.has(id)) send(encodeJson(EXIT, id, { code, signal }))
    })
    send(encodeJson(STARTED, id, { pid: child.pid }))
  }

  const reader = new FrameReader()
  process.stdin.on("data", (chunk: Buffer) => {
    try {
      reader.push(chunk, (frame) => {
        const command = commands.get(frame.id)
        if (frame.kind === RUN) run(frame.id, JSON.parse(frame.payload.toString("utf8")) as RunRequest)
        else if (frame.kind === GO) command?.child.stdin?.end("\n")
        else if (frame.kind === CANCEL) {
          command?.child.kill("SIGKILL")
          commands.delete(frame.id)
        } else if (frame.kind === RELEASE && command !== undefined) {
          commands.delete(frame.id)
          command.child.stdout?.destroy()
          command.child.stderr?.destroy()
        }
      })
    } catch {
      process.exit(2)
    }
  })
  process.stdin.on("end", () => process.exit(0))
  send(encodeJson(READY, 0, { pid: process.pid, guarded }))
}
