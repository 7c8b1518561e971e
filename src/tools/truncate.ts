/**
 * Output caps shared by the tools: every token of a tool result is paid for on every later
 * request, so results are capped by lines and by bytes, very long lines are cut, and whatever did
 * not fit is saved through `context.spill` so that the model can page through it with `read`.
 */
import * as Effect from "effect/Effect"
import type { ToolContext } from "./tool.ts"
import { formatBytes } from "../text/bytes.ts"

export const byteLength = (text: string): number => Buffer.byteLength(text, "utf8")

/**
 * Cuts a line longer than `maxChars` (UTF-16 units), saying how much was cut. `totalLength` is the
 * length of the whole line when `line` is already only its beginning.
 */
export const cutLine = (line: string, maxChars: number, totalLength: number = line.length): string => {
  if (totalLength <= maxChars) return line
  let end = maxChars
  const last = line.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end-- // never split a surrogate pair
  return `${line.slice(0, end)}… [+${totalLength - end} chars]`
}

export interface OutputCaps {
  readonly maxLines: number
  readonly maxBytes: number
  /** Lines longer than this are cut in the returned text (the spilled text keeps them whole). */
  readonly maxLineChars: number
}

export interface CapOptions {
  /** What one line is, for the note: "lines", "entries", "paths". */
  readonly unit: string
}

/**
 * Joins `lines` into the tool's text within `caps`. When lines were left out or cut, the full text
 * is saved with `context.spill(toolName, …)` and a note says how much is missing and where the rest
 * is: `[N more lines not shown; full output saved to PATH — read it with offset=K]`.
 * A failing spill never fails the tool: the note then says the rest could not be saved.
 */
export const capLines = (
  context: ToolContext,
  toolName: string,
  lines: ReadonlyArray<string>,
  caps: OutputCaps,
  options: CapOptions
): Effect.Effect<string> => {
  const shown: Array<string> = []
  let bytes = 0
  let cut = false
  for (const line of lines) {
    if (shown.length >= caps.maxLines) break
    const text = cutLine(line, caps.maxLineChars)
    const size = byteLength(text) + 1
    if (shown.length > 0 && bytes + size > caps.maxBytes) break
    if (text !== line) cut = true
    shown.push(text)
    bytes += size
  }
  const omitted = lines.length - shown.length
  const body = shown.join("\n")
  if (omitted === 0 && !cut) return Effect.succeed(body)

  const reason =
    omitted === 0
      ? `lines longer than ${caps.maxLineChars} characters were cut`
      : `${omitted} more ${options.unit} not shown (limit ${shown.length >= caps.maxLines ? `${caps.maxLines} ${options.unit}` : formatBytes(caps.maxBytes)})`
  return context.spill(toolName, lines.join("\n") + "\n").pipe(
    Effect.map((saved) => {
      const where = omitted === 0 ? `full output saved to ${saved}` : `full output saved to ${saved} — read it with offset=${shown.length + 1}`
      return `${body}\n\n[${reason}; ${where}]`
    }),
    Effect.catchAll((error) => Effect.succeed(`${body}\n\n[${reason}; the full output could not be saved: ${error.message}]`))
  )
}
