/**
 * File plumbing shared by edit and write: decoding a text file the way read shows it and encoding
 * it back byte-for-byte the same way, and replacing a file atomically while keeping its mode. One
 * change at a time per file is the session's KeyedSemaphore (src/files/keyed-semaphore.ts).
 */
import { randomBytes } from "node:crypto"
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { sniffContent, type TextEncoding } from "./read.ts"
import { ToolError } from "./tool.ts"
import { cutLine } from "./truncate.ts"
import { messageOf } from "../text/error-text.ts"

/** Larger files are refused by edit: it holds the whole file (and its candidates) in memory. */
export const EDIT_MAX_BYTES = 32 * 1024 * 1024
const SNIFF_BYTES = 8192

// ---------------------------------------------------------------------------------------------
// Encodings
// ---------------------------------------------------------------------------------------------

/**
 * A decoded text file. `text` is what edit searches and changes; for a file that is not valid
 * UTF-8 (`bytes: true`) it holds one character per byte (latin1), so that bytes edit does not touch
 * are written back unchanged, and the model's strings are converted with `fromModel`.
 */
export interface DecodedText {
  readonly text: string
  readonly encoding: TextEncoding
  readonly bom: boolean
  readonly bytes: boolean
}

const UTF8_BOM = Uint8Array.from([0xef, 0xbb, 0xbf])

/** Decodes a file's bytes as read does, or says why edit cannot treat it as text. */
export const decodeText = (data: Uint8Array): DecodedText | { readonly refused: string } => {
  const sniffed = sniffContent(data.subarray(0, SNIFF_BYTES))
  if ("binary" in sniffed) return { refused: `is ${sniffed.binary}, not a text file` }
  if (sniffed.text === "utf-8") {
    const bom = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf
    const body = bom ? data.subarray(3) : data
    try {
      return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body), encoding: "utf-8", bom, bytes: false }
    } catch {
      return { text: Buffer.from(body).toString("latin1"), encoding: "utf-8", bom, bytes: true }
    }
  }
  try {
    const text = new TextDecoder(sniffed.text, { fatal: true, ignoreBOM: true }).decode(data.subarray(2))
    return { text, encoding: sniffed.text, bom: true, bytes: false }
  } catch {
    return { refused: `is not valid ${sniffed.text === "utf-16le" ? "UTF-16LE" : "UTF-16BE"} text` }
  }
}

/** The bytes of `text` in the file's encoding, byte order mark included when it had one. */
export const encodeText = (file: DecodedText, text: string): Uint8Array => {
  if (file.encoding === "utf-8") {
    const body = file.bytes ? Buffer.from(text, "latin1") : Buffer.from(text, "utf8")
    return file.bom ? Buffer.concat([UTF8_BOM, body]) : body
  }
  const body = Buffer.from(text, "utf16le")
  if (file.encoding === "utf-16be") body.swap16()
  const bom = file.encoding === "utf-16le" ? Uint8Array.from([0xff, 0xfe]) : Uint8Array.from([0xfe, 0xff])
  return Buffer.concat([bom, body])
}

/** A string from the model in the file's working text (see DecodedText.bytes). */
export const fromModel = (file: DecodedText, text: string): string => (file.bytes ? Buffer.from(text, "utf8").toString("latin1") : text)

/** Working text shown back to the model. */
export const toModel = (file: DecodedText, text: string): string => (file.bytes ? Buffer.from(text, "latin1").toString("utf8") : text)

// ---------------------------------------------------------------------------------------------
// Lines
// ---------------------------------------------------------------------------------------------

/** Lines as read counts them: a final line without a newline counts, an empty file has none. */
export const countLines = (text: string): number => {
  if (text.length === 0) return 0
  let count = 0
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++
  return text.endsWith("\n") ? count : count + 1
}

/** 1-based lines of the characters at `offsets` (in ascending order), in one pass. */
export const lineNumbers = (text: string, offsets: ReadonlyArray<number>): Array<number> => {
  const lines: Array<number> = []
  let line = 1
  let newline = text.indexOf("\n")
  for (const offset of offsets) {
    while (newline !== -1 && newline < offset) {
      line++
      newline = text.indexOf("\n", newline + 1)
    }
    lines.push(line)
  }
  return lines
}

/** The lines of a text without line terminators (a final newline ends the last line). */
export const splitLines = (text: string): Array<string> => {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop()
  return lines
}

const SHOWN_LINE_CHARS = 300

/** `N<tab>text` as read shows lines, long lines cut. */
export const numbered = (line: number, text: string): string => `${line}\t${cutLine(text, SHOWN_LINE_CHARS)}`

/**
 * Shows the chosen lines (1-based) of `lines` numbered, in order, with `…` where lines are skipped,
 * at most `maxLines` of them.
 */
export const showLines = (lines: ReadonlyArray<string>, chosen: Iterable<number>, maxLines = 40): string => {
  const wanted = [...new Set(chosen)].filter((n) => n >= 1 && n <= lines.length).sort((a, b) => a - b)
  const out: Array<string> = []
  let previous = 0
  let shown = 0
  for (const n of wanted) {
    if (shown >= maxLines) {
      out.push("…")
      break
    }
    if (previous !== 0 && n > previous + 1) out.push("…")
    out.push(numbered(n, lines[n - 1] ?? ""))
    previous = n
    shown++
  }
  return out.join("\n")
}

/** Line numbers showing the ranges with `around` lines of context; long ranges show head and tail. */
export const linesAround = (ranges: ReadonlyArray<readonly [number, number]>, around = 2, edge = 4): Array<number> => {
  const chosen: Array<number> = []
  const span = (from: number, to: number): void => {
    for (let n = from; n <= to; n++) chosen.push(n)
  }
  for (const [from, to] of ranges) {
    if (to - from + 1 <= 2 * edge + 1) span(from - around, to + around)
    else {
      span(from - around, from + edge - 1)
      span(to - edge + 1, to + around)
    }
  }
  return chosen
}

/** "line 4" or "lines 4–6". */
export const lineRange = (from: number, to: number): string => (from === to ? `line ${from}` : `lines ${from}–${to}`)

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

export const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined

const errorText = (error: unknown): string => {
  const code = errorCode(error)
  if (code === "EACCES" || code === "EPERM") return "permission denied"
  if (code === "EROFS") return "read-only file system"
  if (code === "ENOSPC") return "no space left on device"
  if (code === "EDQUOT") return "disk quota exceeded"
  return messageOf(error)
}

/** Keeps ToolErrors, turns anything else into "cannot <verb> <display>: <reason>". */
export const toolErrorFrom = (verb: string, display: string) => (error: unknown): ToolError =>
  error instanceof ToolError ? error : new ToolError({ message: `cannot ${verb} ${display}: ${errorText(error)}` })

/** Refuses a path written as a directory (`src/`), which would otherwise name a file `src`. */
export const refuseDirectorySyntax = (input: string, tool: string): ToolError | undefined =>
  /[\\/]$/.test(input) || /(^|[\\/])\.{1,2}$/.test(input)
    ? new ToolError({ message: `'${input}' names a directory; ${tool} needs a file path.` })
    : undefined

// ---------------------------------------------------------------------------------------------
// Atomic replacement
// ---------------------------------------------------------------------------------------------

/** What edit saw of the file, to notice a change made behind its back before replacing it. */
export interface Seen {
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
}

export interface ReplaceOptions {
  /** The existing file's stat: its mode (and owner, when we may set it) are kept. */
  readonly keep?: fsSync.Stats | undefined
  /** Fail instead of replacing when the file no longer matches this. */
  readonly seen?: Seen | undefined
  readonly display: string
}

const O_NOFOLLOW = fsSync.constants.O_NOFOLLOW ?? 0

/** Opens an existing file for reading without following a symbolic link in its last component. */
export const openForReading = (real: string): Promise<fs.FileHandle> => fs.open(real, fsSync.constants.O_RDONLY | O_NOFOLLOW)

const tempName = (file: string): string => {
  const base = path.basename(file).slice(0, 100)
  return path.join(path.dirname(file), `.${base}.crystal-${process.pid}-${randomBytes(4).toString("hex")}.tmp`)
}

/**
 * Checks, after creating directories, that the parent of `real` still is the real directory the
 * fence approved: a directory swapped for a symbolic link in the meantime is refused.
 */
export const checkParent = (real: string, display: string): void => {
  const parent = path.dirname(real)
  let actual: string
  try {
    actual = fsSync.realpathSync(parent)
  } catch (error) {
    throw new ToolError({ message: `cannot write ${display}: ${errorText(error)}` })
  }
  if (actual !== parent) throw new ToolError({ message: `cannot write ${display}: its directory changed (it now resolves to ${actual}); try again.` })
}

/**
 * Replaces `file` with `data` so that a reader, or a crash at any instant, sees the old content or
 * the new, never a torn file: a temp file in the same directory, fsynced, renamed over the target.
 * The temp file is removed on any failure. An existing file's permission bits are kept (and its
 * owner, when the process may set it); a new file gets the default mode (0666 less the umask).
 */
export const replaceFile = async (file: string, data: Uint8Array, options: ReplaceOptions): Promise<void> => {
  const temp = tempName(file)
  const keep = options.keep
  const flags = fsSync.constants.O_WRONLY | fsSync.constants.O_CREAT | fsSync.constants.O_EXCL | O_NOFOLLOW
  const handle = await fs.open(temp, flags, keep === undefined ? 0o666 : 0o600)
  let renamed = false
  try {
    try {
      await handle.writeFile(data)
      if (keep !== undefined) {
        if (typeof process.getuid === "function" && (keep.uid !== process.getuid() || keep.gid !== process.getgid?.())) {
          await handle.chown(keep.uid, keep.gid).catch(() => {})
        }
        await handle.chmod(keep.mode & 0o7777).catch(() => handle.chmod(keep.mode & 0o777))
      }
      await handle.sync()
    } finally {
      await handle.close()
    }
    if (options.seen !== undefined) {
      const now = await fs.lstat(file).catch(() => undefined)
      const seen = options.seen
      if (now === undefined || now.ino !== seen.ino || now.size !== seen.size || now.mtimeMs !== seen.mtimeMs) {
        throw new ToolError({ message: `${options.display} changed on disk while it was being edited; nothing was written. Read it again.` })
      }
    }
    await fs.rename(temp, file)
    renamed = true
  } finally {
    if (!renamed) await fs.rm(temp, { force: true }).catch(() => {})
  }
  await syncDirectory(path.dirname(file))
}

/** Makes a rename durable; some platforms cannot open a directory, which is fine to ignore. */
const syncDirectory = async (dir: string): Promise<void> => {
  try {
    const handle = await fs.open(dir, "r")
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // best effort
  }
}
