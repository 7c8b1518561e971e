import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import { statOrNotFound } from "./not-found.ts"
import { READ_MAX_BYTES, READ_MAX_LINE_CHARS, READ_MAX_LINES } from "./specs.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"
import { byteLength, cutLine } from "./truncate.ts"
import { messageOf } from "../text/error-text.ts"
import { formatBytes } from "../text/bytes.ts"
import { plural } from "../text/plural.ts"

const SNIFF_BYTES = 8192
const CHUNK_BYTES = 64 * 1024
/** UTF-16 files are decoded whole; larger ones are refused. */
const MAX_UTF16_BYTES = 32 * 1024 * 1024

const ascii = (bytes: Uint8Array, at: number, text: string): boolean => {
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false
  return true
}
const startsWith = (bytes: Uint8Array, ...prefix: ReadonlyArray<number>): boolean => prefix.every((b, i) => bytes[i] === b)

const MAGIC: ReadonlyArray<readonly [string, (bytes: Uint8Array) => boolean]> = [
  ["a PNG image", (b) => startsWith(b, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)],
  ["a JPEG image", (b) => startsWith(b, 0xff, 0xd8, 0xff)],
  ["a GIF image", (b) => ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a")],
  ["a WebP image", (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP")],
  ["a WAV audio file", (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE")],
  ["a BMP image", (b) => ascii(b, 0, "BM") && b.length > 14 && b[6] === 0 && b[7] === 0],
  ["an ICO image", (b) => startsWith(b, 0x00, 0x00, 0x01, 0x00)],
  ["a PDF document", (b) => ascii(b, 0, "%PDF-")],
  ["a ZIP archive", (b) => startsWith(b, 0x50, 0x4b, 0x03, 0x04) || startsWith(b, 0x50, 0x4b, 0x05, 0x06)],
  ["a gzip archive", (b) => startsWith(b, 0x1f, 0x8b)],
  ["a bzip2 archive", (b) => ascii(b, 0, "BZh")],
  ["an xz archive", (b) => startsWith(b, 0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)],
  ["a zstd archive", (b) => startsWith(b, 0x28, 0xb5, 0x2f, 0xfd)],
  ["a 7-Zip archive", (b) => startsWith(b, 0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c)],
  ["a tar archive", (b) => ascii(b, 257, "ustar")],
  ["an ELF executable", (b) => startsWith(b, 0x7f, 0x45, 0x4c, 0x46)],
  ["a Mach-O executable", (b) => [[0xfe, 0xed, 0xfa, 0xce], [0xfe, 0xed, 0xfa, 0xcf], [0xce, 0xfa, 0xed, 0xfe], [0xcf, 0xfa, 0xed, 0xfe]].some((m) => startsWith(b, ...m))],
  ["a Java class file or Mach-O universal binary", (b) => startsWith(b, 0xca, 0xfe, 0xba, 0xbe)],
  ["a Windows executable", (b) => ascii(b, 0, "MZ") && b.includes(0)],
  ["a WebAssembly module", (b) => startsWith(b, 0x00, 0x61, 0x73, 0x6d)],
  ["an SQLite database", (b) => ascii(b, 0, "SQLite format 3\0")],
  ["an MP3 audio file", (b) => ascii(b, 0, "ID3")],
  ["an MP4/QuickTime media file", (b) => ascii(b, 4, "ftyp")],
  ["an Ogg media file", (b) => ascii(b, 0, "OggS")],
  ["a FLAC audio file", (b) => ascii(b, 0, "fLaC")],
  ["a WOFF font", (b) => ascii(b, 0, "wOFF") || ascii(b, 0, "wOF2")],
  ["a font file", (b) => ascii(b, 0, "OTTO") || startsWith(b, 0x00, 0x01, 0x00, 0x00, 0x00)]
]

export type TextEncoding = "utf-8" | "utf-16le" | "utf-16be"

/**
 * Looks at the first bytes of a file: the text encoding to decode it with, or what kind of
 * binary file it is ("a PNG image", "a binary file (it contains NUL bytes)", ...).
 */
export const sniffContent = (head: Uint8Array): { readonly text: TextEncoding } | { readonly binary: string } => {
  if (startsWith(head, 0xff, 0xfe)) return { text: "utf-16le" }
  if (startsWith(head, 0xfe, 0xff)) return { text: "utf-16be" }
  for (const [kind, test] of MAGIC) if (test(head)) return { binary: kind }
  if (head.includes(0)) return { binary: "a binary file (it contains NUL bytes)" }
  let control = 0
  for (const b of head) {
    // Control characters other than tab, newline, form feed, carriage return, backspace, escape.
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0b && b !== 0x0c && b !== 0x0d && b !== 0x08 && b !== 0x1b) control++
  }
  if (head.length > 0 && control / head.length > 0.1) return { binary: "a binary file (it is mostly control characters)" }
  return { text: "utf-8" }
}

interface ReadRequest {
  readonly offset: number
  /** Lines to show at most (the caller's limit or the default cap). */
  readonly limit: number
  readonly limitGiven: boolean
}

/** Collects numbered lines within the caps; counts the rest. */
class LineCollector {
  lineCount = 0
  readonly shown: Array<string> = []
  readonly cutLines: Array<number> = []
  bytes = 0
  stoppedBy: "limit" | "bytes" | undefined
  crlf = false
  private current = ""
  private currentLength = 0
  private hasCurrent = false

  private readonly request: ReadRequest

  constructor(request: ReadRequest) {
    this.request = request
  }

  get done(): boolean {
    return this.stoppedBy !== undefined
  }

  private append(piece: string): void {
    this.hasCurrent = true
    this.currentLength += piece.length
    const room = READ_MAX_LINE_CHARS + 1 - this.current.length
    if (room > 0) this.current += piece.length <= room ? piece : piece.slice(0, room)
  }

  private finishLine(): void {
    this.lineCount++
    let text = this.current
    let length = this.currentLength
    this.current = ""
    this.currentLength = 0
    this.hasCurrent = false
    if (this.done || this.lineCount < this.request.offset) return
    if (this.shown.length >= this.request.limit) {
      this.stoppedBy = "limit"
      return
    }
    if (length <= READ_MAX_LINE_CHARS + 1 && text.endsWith("\r")) {
      text = text.slice(0, -1)
      length--
      this.crlf = true
    }
    let shownText = text
    if (length > READ_MAX_LINE_CHARS) {
      shownText = cutLine(text, READ_MAX_LINE_CHARS, length)
      this.cutLines.push(this.lineCount)
    }
    const line = `${this.lineCount}\t${shownText}`
    const size = byteLength(line) + 1
    if (this.shown.length > 0 && this.bytes + size > READ_MAX_BYTES) {
      this.stoppedBy = "bytes"
      if (this.cutLines[this.cutLines.length - 1] === this.lineCount) this.cutLines.pop()
      return
    }
    this.shown.push(line)
    this.bytes += size
  }

  push(text: string): void {
    let start = 0
    for (;;) {
      const newline = text.indexOf("\n", start)
      if (newline === -1) break
      this.append(text.slice(start, newline))
      this.finishLine()
      start = newline + 1
    }
    if (start < text.length) this.append(text.slice(start))
  }

  /** Counts newlines of raw UTF-8 bytes once nothing more will be shown. */
  countBytes(bytes: Uint8Array): void {
    for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) {
      this.lineCount++
      this.hasCurrent = false
    }
    if (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) this.hasCurrent = true
  }

  end(): void {
    if (this.hasCurrent) this.finishLine()
  }
}

const collectLines = async (real: string, request: ReadRequest, encoding: TextEncoding): Promise<LineCollector> => {
  const collector = new LineCollector(request)
  if (encoding !== "utf-8") {
    const stat = await fs.stat(real)
    if (stat.size > MAX_UTF16_BYTES) throw new Error(`the file is UTF-16 and larger than ${formatBytes(MAX_UTF16_BYTES)}`)
    collector.push(new TextDecoder(encoding).decode(await fs.readFile(real)))
    collector.end()
    return collector
  }
  const decoder = new TextDecoder("utf-8")
  const handle = await fs.open(real, "r")
  try {
    const buffer = new Uint8Array(CHUNK_BYTES)
    let decoding = true
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
      if (bytesRead === 0) break
      const chunk = buffer.subarray(0, bytesRead)
      if (decoding) {
        collector.push(decoder.decode(chunk, { stream: true }))
        if (collector.done) decoding = false
      } else collector.countBytes(chunk)
    }
    if (decoding) collector.push(decoder.decode())
    collector.end()
  } finally {
    await handle.close()
  }
  return collector
}

const formatRead = (collector: LineCollector, request: ReadRequest): string => {
  const total = collector.lineCount
  if (total === 0) return "(empty file)"
  const notes: Array<string> = []
  const first = request.offset
  const last = first + collector.shown.length - 1
  if (last < total) {
    const why =
      collector.stoppedBy === "bytes"
        ? ` (${formatBytes(READ_MAX_BYTES)} output limit)`
        : request.limitGiven
          ? ""
          : ` (${READ_MAX_LINES}-line limit)`
    notes.push(`[Lines ${first}-${last} of ${total}${why}. Continue with offset=${last + 1}.]`)
  }
  if (collector.cutLines.length > 0) {
    const listed = collector.cutLines.slice(0, 10).join(", ")
    const more = collector.cutLines.length > 10 ? ", …" : ""
    notes.push(`[Lines longer than ${READ_MAX_LINE_CHARS} characters were cut: ${listed}${more}. Use grep to search them.]`)
  }
  if (collector.crlf) notes.push("[The file has CRLF line endings; they are not shown.]")
  return notes.length === 0 ? collector.shown.join("\n") : `${collector.shown.join("\n")}\n\n${notes.join("\n")}`
}

/** The read tool (its definition is readSpec in specs.ts). */
export const readFile = (
  args: { readonly path: string; readonly offset?: number | undefined; readonly limit?: number | undefined },
  context: ToolContext
): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    const { real, display } = yield* context.fence.resolve(args.path, "read")
    const request: ReadRequest = {
      offset: args.offset ?? 1,
      limit: Math.min(args.limit ?? READ_MAX_LINES, READ_MAX_LINES),
      limitGiven: args.limit !== undefined
    }
    const collector = yield* Effect.tryPromise({
      try: async () => {
        const stat = await statOrNotFound(context, real, display, "File")
        if (stat.isDirectory()) throw new ToolError({ message: `${display} is a directory; use list or tree to see its entries.` })
        if (!stat.isFile()) throw new ToolError({ message: `${display} is not a regular file.` })
        const handle = await fs.open(real, "r")
        let head: Uint8Array
        try {
          const buffer = new Uint8Array(SNIFF_BYTES)
          const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0)
          head = buffer.subarray(0, bytesRead)
        } finally {
          await handle.close()
        }
        const sniffed = sniffContent(head)
        if ("binary" in sniffed) throw new ToolError({ message: `${display} is ${sniffed.binary}, not a text file; read shows text files only.` })
        const editor = context.editorFiles?.read
        if (editor === undefined || sniffed.text !== "utf-8") return collectLines(real, request, sniffed.text)
        // The editor's text of the file: an open buffer's unsaved changes included.
        const collector = new LineCollector(request)
        collector.push(await editor(real))
        collector.end()
        return collector
      },
      catch: (error) =>
        error instanceof ToolError
          ? error
          : new ToolError({ message: `cannot read ${display}: ${messageOf(error)}` })
    })
    if (request.offset > 1 && request.offset > collector.lineCount) {
      return yield* new ToolError({
        message: `offset ${request.offset} is past the end of ${display} (${plural(collector.lineCount, "line")}).`
      })
    }
    return { text: formatRead(collector, request) }
  })
