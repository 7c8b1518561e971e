/**
 * Running `rg` for the grep tool: where to find it, the argv that makes its file selection equal
 * to the built-in walker's, and parsing its output into the records both implementations share.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { IGNORE_FILE_NAMES, rerootIgnoreText } from "../files/walk/gitignore.ts"
import { RecordBudget, type GrepRecord, type GrepRequest, type GrepResult } from "./grep-records.ts"
import { ToolError } from "./tool.ts"
import { loadAncestorIgnoreFiles } from "../files/walk/walk.ts"
import { messageOf } from "../text/error-text.ts"

/** `rg` could not be started: the caller falls back to the built-in search. */
export class RipgrepUnavailable {
  readonly _tag = "RipgrepUnavailable"
  readonly reason: string

  constructor(reason: string) {
    this.reason = reason
  }
}

let located: Promise<string | undefined> | undefined

/** The first executable `rg` on PATH (looked up once per process), or undefined. */
export const findRipgrep = (): Promise<string | undefined> => {
  located ??= (async () => {
    const names = process.platform === "win32" ? ["rg.exe"] : ["rg"]
    for (const dir of (process.env["PATH"] ?? "").split(path.delimiter)) {
      if (dir === "") continue
      for (const name of names) {
        const candidate = path.join(dir, name)
        try {
          const stat = await fs.stat(candidate)
          if (!stat.isFile()) continue
          await fs.access(candidate, fs.constants.X_OK)
          return candidate
        } catch {
          // not here
        }
      }
    }
    return undefined
  })()
  return located
}

/**
 * The argv (without the program) for a search. `target` is relative to `request.root`, which is
 * rg's working directory; `ignoreFile` holds the re-rooted ignore rules of the directories between
 * the root and the target.
 *
 * - `--no-config`: a user's RIPGREP_CONFIG_PATH must not change results.
 * - `--no-heading --with-filename --line-number --color never`: `path:line:text` lines, even for
 *   one file; `--null` puts a NUL after the path so paths with `:` parse safely (we print `:`).
 * - `--sort path`: deterministic order (per directory, by name), the order the built-in walks in.
 * - `--hidden`: hidden files are searched; `--glob !.git` (given last, so it wins over the
 *   caller's glob) skips every `.git` entry.
 * - `--no-require-git`: .gitignore applies outside git repositories too.
 * - `--no-ignore-parent --no-ignore-global --no-ignore-exclude`: nothing above the root, no global
 *   excludes file, no .git/info/exclude. The root's own and intermediate ignore files come through
 *   `--ignore-file` instead (rg would otherwise read every parent up to `/`).
 * - `.ignore` and `.rgignore` stay on: rg 13 cannot turn `.rgignore` off without turning off
 *   .gitignore too, so the built-in honours both as well.
 * - Values are attached with `=` so that a glob or pattern starting with `-` is never read as a flag.
 * - `--no-messages --no-ignore-messages`: unreadable files are skipped silently (as the built-in
 *   does); stderr then only carries fatal errors such as a bad regex.
 */
export const ripgrepArgs = (request: GrepRequest, target: string, ignoreFile: string | undefined): Array<string> => [
  "--no-config",
  "--color",
  "never",
  "--no-heading",
  "--with-filename",
  "--line-number",
  "--sort",
  "path",
  "--hidden",
  "--no-require-git",
  "--no-ignore-parent",
  "--no-ignore-global",
  "--no-ignore-exclude",
  "--no-messages",
  "--no-ignore-messages",
  ...(request.ignoreCase ? ["--ignore-case"] : []),
  ...(request.filesOnly ? ["--files-with-matches"] : ["--null", ...(request.context > 0 ? ["--context", String(request.context)] : [])]),
  ...(ignoreFile === undefined ? [] : [`--ignore-file=${ignoreFile}`]),
  ...(request.glob === undefined ? [] : [`--glob=${request.glob}`]),
  "--glob=!.git",
  `--regexp=${request.pattern}`,
  "--",
  target
]

/**
 * The ignore rules of the directories from the root down to the target's parent, rooted at the root.
 * Read here, as regular files only (walk.ts), never by rg (`--no-ignore-parent`).
 */
export const ancestorIgnoreText = (root: string, target: string): string | undefined => {
  const parts: Array<string> = []
  for (const dir of loadAncestorIgnoreFiles(root, target)) {
    // Lowest precedence first: rg lets the last matching line win.
    for (const name of IGNORE_FILE_NAMES) {
      const text = dir.texts[name]
      if (text !== undefined) parts.push(rerootIgnoreText(text, dir.relative))
    }
  }
  const text = parts.filter((part) => part !== "").join("\n")
  return text === "" ? undefined : `${text}\n`
}

const normalizeFile = (file: string): string => {
  const posix = path.sep === "\\" ? file.replaceAll("\\", "/") : file
  return posix.startsWith("./") ? posix.slice(2) : posix
}

const RECORD = /^(\d+)([:-])/
/** How rg (clap) reports a flag it does not know. */
const UNSUPPORTED_FLAG = /Found argument '--|unrecognized flag|unexpected argument '--/

/** Parses one output line of rg (run with `--null`, or `--files-with-matches` without it). */
export const parseRipgrepLine = (line: string, filesOnly: boolean): GrepRecord | undefined => {
  if (filesOnly) return line === "" ? undefined : { kind: "file", file: normalizeFile(line) }
  if (line === "--") return { kind: "separator" }
  const nul = line.indexOf("\0")
  if (nul === -1) return undefined
  const rest = line.slice(nul + 1)
  const parsed = RECORD.exec(rest)
  if (parsed === null) return undefined
  return {
    kind: parsed[2] === ":" ? "match" : "context",
    file: normalizeFile(line.slice(0, nul)),
    line: Number(parsed[1]),
    text: rest.slice(parsed[0].length)
  }
}

const makeTempIgnoreFile = (text: string | undefined): Effect.Effect<string | undefined, ToolError> =>
  text === undefined
    ? Effect.succeed(undefined)
    : Effect.tryPromise({
        try: async () => {
          const dir = await fs.mkdtemp(path.join(os.tmpdir(), "crystal-rg-"))
          const file = path.join(dir, "ignore")
          await fs.writeFile(file, text, { mode: 0o600 })
          return file
        },
        catch: (error) => new ToolError({ message: `grep could not prepare ignore rules: ${messageOf(error)}` })
      })

const removeTempIgnoreFile = (file: string | undefined): Effect.Effect<void> =>
  file === undefined ? Effect.void : Effect.promise(() => fs.rm(path.dirname(file), { recursive: true, force: true }).catch(() => undefined))

const spawnRipgrep = (rg: string, args: ReadonlyArray<string>, cwd: string, filesOnly: boolean): Effect.Effect<GrepResult, ToolError | RipgrepUnavailable> =>
  Effect.async<GrepResult, ToolError | RipgrepUnavailable>((resume) => {
    const child = spawn(rg, args, { cwd, stdio: ["ignore", "pipe", "pipe"], windowsHide: true })
    const decoder = new TextDecoder("utf-8")
    const records: Array<GrepRecord> = []
    const budget = new RecordBudget()
    let pending: Array<Buffer> = []
    let truncated = false
    let stderr = ""
    let settled = false

    const takeLine = (line: Uint8Array): void => {
      if (truncated) return
      const record = parseRipgrepLine(decoder.decode(line), filesOnly)
      if (record === undefined) return
      if (!budget.admit(record)) {
        truncated = true
        child.kill("SIGKILL")
        return
      }
      records.push(record)
    }

    child.stdout.on("data", (chunk: Buffer) => {
      let start = 0
      for (let newline = chunk.indexOf(0x0a); newline !== -1 && !truncated; newline = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, newline)
        if (pending.length > 0) {
          pending.push(piece)
          takeLine(Buffer.concat(pending))
          pending = []
        } else takeLine(piece)
        start = newline + 1
      }
      if (start < chunk.length && !truncated) pending.push(chunk.subarray(start))
    })
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString("utf8")
    })
    child.on("error", (error) => {
      if (settled) return
      settled = true
      resume(Effect.fail(new RipgrepUnavailable(error.message)))
    })
    child.on("close", (code) => {
      if (settled) return
      settled = true
      if (!truncated && pending.length > 0) takeLine(Buffer.concat(pending))
      if (truncated || code === 0 || code === 1 || (code === 2 && stderr.trim() === "")) {
        resume(Effect.succeed({ records, truncated }))
      } else if (UNSUPPORTED_FLAG.test(stderr)) {
        // An rg too old for one of our flags: the built-in search gives the intended result.
        resume(Effect.fail(new RipgrepUnavailable(stderr.trim())))
      } else {
        resume(Effect.fail(new ToolError({ message: `grep failed: ${stderr.trim() || `rg exited with code ${String(code)}`}` })))
      }
    })
    return Effect.sync(() => {
      settled = true
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    })
  })

/** Runs the search with `rg`. Fails with RipgrepUnavailable when the program cannot be started. */
export const grepWithRipgrep = (rg: string, request: GrepRequest): Effect.Effect<GrepResult, ToolError | RipgrepUnavailable> => {
  // Always `./…`: a bare `-` would mean stdin to rg. The `./` is stripped from what rg prints.
  const relative = path.relative(request.root, request.target)
  const target = relative === "" ? "." : `.${path.sep}${relative}`
  return Effect.acquireUseRelease(
    request.targetIsFile
      ? Effect.succeed(undefined)
      : Effect.sync(() => ancestorIgnoreText(request.root, request.target)).pipe(Effect.flatMap(makeTempIgnoreFile)),
    (ignoreFile) => spawnRipgrep(rg, ripgrepArgs(request, target, ignoreFile), request.root, request.filesOnly),
    removeTempIgnoreFile
  )
}
