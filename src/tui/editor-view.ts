/** Lays the editor's text out in terminal rows: a prompt mark, wrapping, and where the cursor lands. */
import type { EditorState } from "./editor-state.ts"
import { charWidth, graphemes } from "./width.ts"

export interface EditorLayout {
  readonly rows: ReadonlyArray<string>
  readonly cursorRow: number
  readonly cursorColumn: number
}

export const promptMark = "› "
const indent = "  "

/** `spanStyle` colours atomic spans (media markers), so they read as one unit. */
export const layoutEditor = (state: EditorState, width: number, spanStyle: (text: string) => string = (text) => text): EditorLayout => {
  const inSpan = (index: number) => state.spans.some((span) => index >= span.start && index < span.end)
  // One column stays free so a full row never leaves the terminal in its pending-wrap state.
  const room = Math.max(4, width - promptMark.length - 1)
  const rows: Array<string> = []
  let cursorRow = 0
  let cursorColumn = promptMark.length
  let offset = 0
  state.text.split("\n").forEach((line, lineIndex) => {
    let row = ""
    let used = 0
    let prefix = lineIndex === 0 ? promptMark : indent
    // A cursor inside a grapheme cluster (the editor moves by UTF-16 unit) shows at its start.
    const place = (index: number, length = 0) => {
      if (state.cursor >= index && state.cursor < index + Math.max(1, length)) {
        cursorRow = rows.length
        cursorColumn = prefix.length + used
      }
    }
    for (const char of graphemes(line)) {
      const w = charWidth(char)
      if (used + w > room) {
        rows.push(prefix + row)
        prefix = indent
        row = ""
        used = 0
      }
      place(offset, char.length)
      row += inSpan(offset) ? spanStyle(char) : char
      used += w
      offset += char.length
    }
    place(offset)
    rows.push(prefix + row)
    offset += 1
  })
  return { rows, cursorRow, cursorColumn }
}
