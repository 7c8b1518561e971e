/**
 * The grep used when `rg` is not on PATH: the same file selection (walk.ts), the same decoding
 * (a BOM selects UTF-8 or UTF-16; a NUL byte makes a file binary, and binary files found while
 * walking are skipped), the same line splitting, and records in rg's `--sort path` order.
 * Regexes are JavaScript's, with a leading Rust-style `(?i)` understood.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { GlobFilter } from "../files/walk/gitignore.ts"
import { RecordBudget, type GrepRecord, type GrepRequest, type GrepResult } from "./grep-records.ts"
import { ToolError } from "./tool.ts"
import { toPosix, walk, WalkAborted, WalkDir } from "../files/walk/walk.ts"
import { messageOf } from "../text/error-text.ts"

/** Files read at the same time while walking. */
const READ_AHEAD = 16

const startsWith = (bytes: Uint8Array, ...prefix: ReadonlyArray<number>): boolean => prefix.every((b, i) => bytes[i] === b)

/** The text of a file as rg searches it, or undefined for a binary file (a NUL after decoding). */
export const decodeForSearch = (bytes: Uint8Array): string | undefined => {
  let text: string
  if (startsWith(bytes, 0xff, 0xfe)) text = new TextDecoder("utf-16le").decode(bytes)
  else if (startsWith(bytes, 0xfe, 0xff)) text = new TextDecoder("utf-16be").decode(bytes)
  else {
    if (bytes.includes(0)) return undefined
    return new TextDecoder("utf-8").decode(bytes)
  }
  return text.includes("\0") ? undefined : text
}

/** Lines as rg counts them: split on `\n`, a final newline does not start another line. */
export const splitSearchLines = (text: string): Array<string> => {
  if (text === "") return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

const isLiteral = (pattern: string): boolean => !/[\\^$.|?*+()[\]{}]/.test(pattern)

/**
 * Compiles the pattern for per-line matching: `s` so that `.` matches anything but the (absent)
 * newline, as in Rust; `u` when the pattern allows it. Throws ToolError for an invalid pattern.
 */
export const compileSearchRegex = (pattern: string, ignoreCase: boolean): RegExp => {
  let source = pattern
  let caseless = ignoreCase
  const inline = /^\(\?([imsU]+)\)/.exec(source)
  if (inline !== null) {
    if (inline[1]?.includes("i") === true) caseless = true
    source = source.slice(inline[0].length)
  }
  const flags = caseless ? "si" : "s"
  try {
    return new RegExp(source, `${flags}u`)
  } catch {
    try {
      return new RegExp(source, flags)
    } catch (error) {
      throw new ToolError({ message: `invalid regular expression: ${messageOf(error)}` })
    }
  }
}

interface Emitter {
  readonly records: Array<GrepRecord>
  readonly budget: RecordBudget
  previous: { readonly file: string; readonly line: number } | undefined
  truncated: boolean
}

const push = (emitter: Emitter, record: GrepRecord): boolean => {
  if (!emitter.budget.admit(record)) {
    emitter.truncated = true
    return false
  }
  emitter.records.push(record)
  return true
}

/** Adds the records of one file; false once the budget is exhausted. */
const emitFile = (emitter: Emitter, request: GrepRequest, file: string, lines: ReadonlyArray<string>, matched: ReadonlyArray<number>): boolean => {
  if (matched.length === 0) return true
  if (request.filesOnly) return push(emitter, { kind: "file", file })
  const isMatch = new Set(matched)
  const context = request.context
  let printedUpTo = -1
  for (const index of matched) {
    const from = Math.max(index - context, printedUpTo + 1)
    const to = Math.min(index + context, lines.length - 1)
    for (let i = from; i <= to; i++) {
      const line = i + 1
      const previous = emitter.previous
      if (context > 0 && previous !== undefined && !(previous.file === file && previous.line === line - 1)) {
        if (!push(emitter, { kind: "separator" })) return false
      }
      if (!push(emitter, { kind: isMatch.has(i) ? "match" : "context", file, line, text: lines[i] ?? "" })) return false
      emitter.previous = { file, line }
      printedUpTo = i
    }
  }
  return true
}

interface FileHits {
  readonly lines: ReadonlyArray<string>
  readonly matched: ReadonlyArray<number>
}

const searchFile = async (full: string, regex: RegExp, literal: string | undefined): Promise<FileHits | undefined> => {
  let bytes: Uint8Array
  try {
    bytes = await fs.readFile(full)
  } catch {
    return undefined
  }
  const text = decodeForSearch(bytes)
  if (text === undefined) return undefined
  if (literal !== undefined && !text.includes(literal)) return undefined
  const lines = splitSearchLines(text)
  const matched: Array<number> = []
  for (let i = 0; i < lines.length; i++) if (regex.test(lines[i] ?? "")) matched.push(i)
  return matched.length === 0 ? undefined : { lines, matched }
}

/**
 * Searches without rg. `request.target` must exist; a binary target file gives no records (the
 * tool refuses binary target files before choosing an implementation). Throws ToolError for a bad
 * pattern or glob, WalkAborted when `signal` fires.
 */
/** The `glob` argument compiled, or the ToolError both grep implementations give for a bad one. */
export const grepGlob = (glob: string): GlobFilter => {
  try {
    return GlobFilter.make(glob)
  } catch (error) {
    throw new ToolError({ message: `invalid glob ${glob}: ${messageOf(error)}` })
  }
}

export const grepBuiltin = async (request: GrepRequest, signal?: AbortSignal): Promise<GrepResult> => {
  const regex = compileSearchRegex(request.pattern, request.ignoreCase)
  const literal = !request.ignoreCase && isLiteral(request.pattern) && request.pattern !== "" ? request.pattern : undefined
  const emitter: Emitter = { records: [], budget: new RecordBudget(), previous: undefined, truncated: false }

  if (request.targetIsFile) {
    const file = toPosix(path.relative(request.root, request.target))
    const hits = await searchFile(request.target, regex, literal)
    if (hits !== undefined) emitFile(emitter, request, file, hits.lines, hits.matched)
    return { records: emitter.records, truncated: emitter.truncated }
  }

  const filter = request.glob === undefined ? undefined : grepGlob(request.glob)
  const start = await WalkDir.open(request.root, request.target, { filter, signal })
  const queue: Array<{ readonly file: string; readonly hits: Promise<FileHits | undefined> }> = []
  const drainOne = async (): Promise<boolean> => {
    const next = queue.shift()
    if (next === undefined) return true
    const hits = await next.hits
    if (signal?.aborted === true) throw new WalkAborted()
    return hits === undefined || emitFile(emitter, request, next.file, hits.lines, hits.matched)
  }
  let going = true
  for await (const entry of walk(start)) {
    if (entry.kind !== "file") continue
    queue.push({ file: entry.relative, hits: searchFile(entry.path, regex, literal) })
    if (queue.length >= READ_AHEAD && !(await drainOne())) {
      going = false
      break
    }
  }
  while (going && queue.length > 0) going = await drainOne()
  return { records: emitter.records, truncated: emitter.truncated }
}
