/**
 * Runs one clipboard reader command: argv only (no shell), stdin closed, stdout capped while it is
 * read (the reader is killed the moment it passes the cap), stderr kept to its start, a time
 * limit. Interrupting the Effect kills the reader.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"

export type ReaderRun =
  | { readonly _tag: "Exited"; readonly code: number | null; readonly stdout: Buffer; readonly stderr: string }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "TimedOut"; readonly seconds: number }
  | { readonly _tag: "SpawnFailed"; readonly message: string }

export interface RunLimits {
  /** Bytes of stdout allowed; one more kills the reader. */
  readonly maxStdout: number
  readonly timeoutMs: number
  readonly env: Readonly<Record<string, string | undefined>>
}

const stderrKept = 4096

const isExecutable = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/** The executable `command` names: itself when absolute, else the first match on PATH. */
export const resolveCommand = (command: string, env: Readonly<Record<string, string | undefined>>): string | undefined => {
  if (path.isAbsolute(command)) return isExecutable(command) ? command : undefined
  const dirs = (env["PATH"] ?? env["Path"] ?? "").split(path.delimiter).filter((dir) => dir !== "")
  const names = process.platform === "win32" ? [command, `${command}.exe`] : [command]
  for (const dir of dirs) for (const name of names) if (isExecutable(path.join(dir, name))) return path.join(dir, name)
  return undefined
}

/** The first non-empty line of a reader's stderr. */
export const firstLine = (stderr: string): string | undefined =>
  stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line !== "")

export const runReader = (command: string, args: ReadonlyArray<string>, limits: RunLimits): Effect.Effect<ReaderRun> =>
  Effect.async<ReaderRun>((resume) => {
    const executable = resolveCommand(command, limits.env)
    if (executable === undefined) {
      resume(Effect.succeed({ _tag: "Missing" }))
      return
    }
    const env: Record<string, string> = {}
    for (const [key, value] of Object.entries(limits.env)) if (value !== undefined) env[key] = value
    let settled = false
    const chunks: Array<Buffer> = []
    let size = 0
    let stderr = ""
    const child = spawn(executable, [...args], { stdio: ["ignore", "pipe", "pipe"], env, windowsHide: true })
    const finish = (run: ReaderRun) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (run._tag !== "Exited") child.kill("SIGKILL")
      resume(Effect.succeed(run))
    }
    const timer = setTimeout(() => finish({ _tag: "TimedOut", seconds: Math.round(limits.timeoutMs / 100) / 10 }), limits.timeoutMs)
    child.stdout.on("data", (chunk: Buffer) => {
      if (settled) return
      size += chunk.length
      if (size > limits.maxStdout) {
        chunks.length = 0
        finish({ _tag: "TooLarge" })
        return
      }
      chunks.push(chunk)
    })
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < stderrKept) stderr += chunk.toString("utf8").slice(0, stderrKept - stderr.length)
    })
    child.on("error", (error: NodeJS.ErrnoException) =>
      finish(error.code === "ENOENT" ? { _tag: "Missing" } : { _tag: "SpawnFailed", message: error.message })
    )
    child.on("close", (code) => finish({ _tag: "Exited", code, stdout: Buffer.concat(chunks, size), stderr }))
    return Effect.sync(() => {
      if (!settled) {
        settled = true
        clearTimeout(timer)
        child.kill("SIGKILL")
      }
    })
  })
