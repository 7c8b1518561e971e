/**
 * The edit tool (its definition is editSpec in write-specs.ts): exact replacement of old_string by
 * new_string in one file, old_string matching once unless replace_all. The file keeps its
 * encoding, byte order mark, line endings and mode, and is replaced atomically.
 */
import * as Effect from "effect/Effect"
import {
  checkParent,
  decodeText,
  EDIT_MAX_BYTES,
  encodeText,
  fromModel,
  lineNumbers,
  lineRange,
  linesAround,
  openForReading,
  refuseDirectorySyntax,
  replaceFile,
  showLines,
  splitLines,
  toModel,
  toolErrorFrom,
  type DecodedText
} from "./edit-files.ts"
import { disjoint, locate, nearMiss, unescaped, withoutLinePrefixes, type Match } from "./edit-match.ts"
import { statOrNotFound } from "./not-found.ts"
import type { KeyedSemaphore } from "../files/keyed-semaphore.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"
import { formatSizeOverLimit } from "../text/bytes.ts"
import { plural } from "../text/plural.ts"
import { editSpec } from "./write-specs.ts"

export interface EditArgs {
  readonly path: string
  readonly old_string: string
  readonly new_string: string
  readonly replace_all?: boolean | undefined
}

const COPY_HINT =
  "Copy old_string exactly from the file, whitespace, indentation (tabs or spaces) and line breaks included, " +
  "without read's line-number prefixes. If the file may have changed since you read it, read it again."

/** "4, 10–11, 22" from sorted line numbers, runs joined, at most `max` items. */
export const formatLineList = (lines: ReadonlyArray<number>, max = 10): string => {
  const runs: Array<string> = []
  let from: number | undefined
  let to = 0
  const flush = (): void => {
    if (from !== undefined) runs.push(from === to ? `${from}` : `${from}–${to}`)
  }
  for (const line of [...new Set(lines)].sort((a, b) => a - b)) {
    if (from !== undefined && line === to + 1) to = line
    else {
      flush()
      from = line
      to = line
    }
  }
  flush()
  return runs.length > max ? `${runs.slice(0, max).join(", ")}, …` : runs.join(", ")
}

const lineWord = (lines: ReadonlyArray<number>): string => (new Set(lines).size === 1 ? "line" : "lines")

/** The error for an old_string that is not in the file: a recognised mistake, or the closest region. */
const notFoundMessage = (display: string, file: DecodedText, args: EditArgs): string => {
  const text = file.text
  const matchLines = (candidate: string): Array<number> =>
    lineNumbers(text, locate(text, fromModel(file, candidate), "").map((match) => match.start))

  const stripped = withoutLinePrefixes(args.old_string)
  if (stripped !== undefined) {
    const lines = matchLines(stripped)
    if (lines.length > 0) {
      return (
        `old_string not found in ${display}: it starts its lines with the line-number prefixes ("12<tab>") that read ` +
        `shows, which are not part of the file. Without them it matches at ${lineWord(lines)} ${formatLineList(lines)}; ` +
        "send old_string and new_string without the prefixes."
      )
    }
  }
  const plain = unescaped(args.old_string)
  if (plain !== undefined) {
    const lines = matchLines(plain)
    if (lines.length > 0) {
      return (
        `old_string not found in ${display}: it contains backslash escapes (such as \\n, \\t or \\") where the file ` +
        `has the characters themselves; unescaped, it matches at ${lineWord(lines)} ${formatLineList(lines)}. ` +
        "Send the text as it appears in the file."
      )
    }
  }
  const prefixNote = stripped === undefined ? "" : " Note: old_string starts its lines with read's line-number prefixes; leave them out."
  const near = nearMiss(text, fromModel(file, stripped ?? args.old_string))
  if (near === undefined) return `old_string not found in ${display}, and no part of the file is similar to it.${prefixNote} ${COPY_HINT}`

  const fileLines = splitLines(toModel(file, text))
  const size = near.to - near.from + 1
  const chosen: Array<number> = []
  if (size <= 30) for (let n = near.from; n <= near.to; n++) chosen.push(n)
  else if (near.differing.length > 0) for (const n of near.differing) chosen.push(n - 1, n, n + 1)
  else for (let n = near.from; n < near.from + 10; n++) chosen.push(n)
  const shown = showLines(fileLines, chosen.filter((n) => n >= near.from && n <= near.to), 40)
  const pastEnd = "old_string continues past the end of the file"
  const what =
    near.whitespace !== undefined
      ? `it differs only in ${near.whitespace}`
      : near.differing.length > 0
        ? `differs at ${lineWord(near.differing)} ${formatLineList(near.differing)}${near.pastEnd ? `; ${pastEnd}` : ""}`
        : near.pastEnd
          ? pastEnd
          : near.to === fileLines.length && args.old_string.endsWith("\n") && !text.endsWith("\n")
            ? "the file's last line has no line break, old_string ends with one"
            : "it differs only in line breaks"
  const percent = Math.min(99, Math.round(near.score * 100))
  return (
    `old_string not found in ${display}. Closest text, ${lineRange(near.from, near.to)} (${percent}% similar; ${what}):\n` +
    `${shown}\n${prefixNote.trim() === "" ? "" : `${prefixNote.trim()}\n`}${COPY_HINT}`
  )
}

interface Replaced {
  readonly text: string
  /** Where each replacement is in the new text: start and end offsets. */
  readonly at: ReadonlyArray<readonly [number, number]>
}

/** Replaces disjoint matches, given in order. */
const replaceMatches = (text: string, matches: ReadonlyArray<Match>): Replaced => {
  const parts: Array<string> = []
  const at: Array<readonly [number, number]> = []
  let cursor = 0
  let size = 0
  for (const match of matches) {
    const kept = text.slice(cursor, match.start)
    parts.push(kept, match.replacement)
    size += kept.length
    at.push([size, size + match.replacement.length])
    size += match.replacement.length
    cursor = match.end
  }
  parts.push(text.slice(cursor))
  return { text: parts.join(""), at }
}

const edit = async (real: string, display: string, args: EditArgs, context: ToolContext): Promise<ToolOutput> => {
  const stat = await statOrNotFound(context, real, display, "File", " To create a new file, use write.")
  if (stat.isDirectory()) throw new ToolError({ message: `${display} is a directory; edit changes a file.` })
  if (!stat.isFile()) throw new ToolError({ message: `${display} is not a regular file; edit changes regular files only.` })
  if (stat.size > EDIT_MAX_BYTES) {
    const { size, limit } = formatSizeOverLimit(stat.size, EDIT_MAX_BYTES)
    throw new ToolError({ message: `${display} is ${size}; edit changes files up to ${limit}.` })
  }

  const handle = await openForReading(real)
  let data: Uint8Array
  let seen: { ino: number; size: number; mtimeMs: number }
  try {
    const now = await handle.stat()
    seen = { ino: now.ino, size: now.size, mtimeMs: now.mtimeMs }
    data = await handle.readFile()
  } finally {
    await handle.close()
  }

  const decoded = decodeText(data)
  if ("refused" in decoded) throw new ToolError({ message: `${display} ${decoded.refused}; edit changes text files only.` })
  // An editor's buffer of a plain UTF-8 file is what is changed, unsaved changes included; other encodings stay on disk.
  const editor = decoded.encoding === "utf-8" && !decoded.bom && !decoded.bytes ? context.editorFiles : undefined
  const file = editor?.read === undefined ? decoded : { ...decoded, text: await editor.read(real) }
  if (file.text.length === 0) {
    throw new ToolError({ message: `${display} is empty, so old_string cannot match; use write to give it content.` })
  }

  const located = locate(file.text, fromModel(file, args.old_string), fromModel(file, args.new_string))
  const count = located.length
  if (count === 0) throw new ToolError({ message: notFoundMessage(display, file, args) })
  if (count > 1 && args.replace_all !== true) {
    const lines = lineNumbers(file.text, located.map((match) => match.start))
    throw new ToolError({
      message:
        `old_string matches ${count} times in ${display} (${lineWord(lines)} ${formatLineList(lines, 20)}); it must match ` +
        `exactly once. Include more surrounding lines to single out one, or set replace_all to replace all ${count}.`
    })
  }

  const chosen = args.replace_all === true ? disjoint(located) : located.slice(0, 1)
  const result = replaceMatches(file.text, chosen)
  if (result.text === file.text) {
    throw new ToolError({
      message: `The edit would leave ${display} unchanged: old_string and new_string differ only in line endings, and edit keeps the file's line endings.`
    })
  }
  checkParent(real, display)
  if (editor?.write !== undefined) await editor.write(real, result.text)
  else await replaceFile(real, encodeText(file, result.text), { keep: stat, seen, display })

  const bounds = lineNumbers(result.text, result.at.flatMap(([start, end]) => [start, Math.max(start, end - 1)]))
  const ranges = result.at.map((_, i): readonly [number, number] => [bounds[2 * i] ?? 1, bounds[2 * i + 1] ?? 1])
  const touched = ranges.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => from + i))
  const verb = args.new_string.length === 0 ? "removed" : "replaced"
  const where =
    ranges.length === 1 && ranges[0] !== undefined
      ? `${verb === "removed" ? "at " : ""}${lineRange(ranges[0][0], ranges[0][1])}`
      : `${lineWord(touched)} ${formatLineList(ranges.map(([from]) => from))}`
  const header = `edited ${display}: ${verb} ${plural(chosen.length, "occurrence")} (${where})`
  const newLines = splitLines(toModel(file, result.text))
  const snippet =
    ranges.length === 1 ? showLines(newLines, linesAround(ranges), 40) : showLines(newLines, linesAround(ranges, ranges.length <= 3 ? 1 : 0, 2), 20)
  return { text: snippet.length === 0 ? `${header}; the file is now empty.` : `${header}:\n${snippet}` }
}

/** The edit tool's implementation; `fileLocks` (the session's) keeps to one change at a time per file. */
export const makeEditFile = (fileLocks: KeyedSemaphore) => (args: EditArgs, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    if (args.old_string.length === 0) {
      return yield* new ToolError({ message: "old_string is empty. To create a file or replace all of its content, use write." })
    }
    if (args.old_string === args.new_string) {
      return yield* new ToolError({ message: "old_string and new_string are identical; there is nothing to change." })
    }
    const syntax = refuseDirectorySyntax(args.path, editSpec.name)
    if (syntax !== undefined) return yield* syntax
    const { real, display } = yield* context.fence.resolve(args.path, "write")
    return yield* fileLocks.withPermit(real)(Effect.tryPromise({ try: () => edit(real, display, args, context), catch: toolErrorFrom(editSpec.name, display) }))
  })
