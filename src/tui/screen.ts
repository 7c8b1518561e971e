/**
 * Inline drawing: finished output is written once and scrolls away like any program's output;
 * below it a small live region (the unfinished line of an answer, activity, the input, menus,
 * the status line) is erased and redrawn on every change. Rows are wrapped here, so the height of
 * what was drawn is known and the next redraw starts exactly at its top, at any width.
 * Every line passes `inertLine` (src/terminal/inert.ts) on its way in: whatever a line holds, the
 * only escapes written are this file's own and the palette's styles.
 */
import { inertLine } from "../terminal/inert.ts"
import type { Terminal } from "./terminal.ts"
import { stripAnsi, textWidth, wrapLine } from "./width.ts"

export interface LiveFrame {
  readonly lines: ReadonlyArray<string>
  /** Where the cursor goes (row within `lines` after wrapping, column); hidden when undefined. */
  readonly cursor?: { readonly row: number; readonly column: number } | undefined
}

const inertFrame = (frame: LiveFrame): LiveFrame => ({ ...frame, lines: frame.lines.map(inertLine) })

export class Screen {
  private readonly terminal: Terminal
  /** Widths of the rows drawn last time: after a resize the terminal may have rewrapped them. */
  private drawnWidths: Array<number> = []
  private cursorRow = 0
  private drawnColumns: number
  private frame: LiveFrame = { lines: [] }

  constructor(terminal: Terminal) {
    this.terminal = terminal
    this.drawnColumns = terminal.columns()
  }

  /** Rows of the last frame as the terminal holds them now, and the cursor's row among them. */
  private eraseSequence(): string {
    if (this.drawnWidths.length === 0) return ""
    const columns = this.terminal.columns()
    const rowsOf = (width: number) => (columns === this.drawnColumns ? 1 : Math.max(1, Math.ceil(width / columns)))
    let up = 0
    for (let row = 0; row < this.cursorRow; row++) up += rowsOf(this.drawnWidths[row] ?? 0)
    return `${up > 0 ? `\x1b[${up}A` : ""}\r\x1b[J`
  }

  /** Wrapped rows (and their widths) of the lines drawn last time: most lines of a frame repeat. */
  private wrapped = new Map<string, { readonly rows: Array<string>; readonly widths: Array<number> }>()

  private draw(frame: LiveFrame): string {
    const columns = this.terminal.columns()
    const previous = columns === this.drawnColumns ? this.wrapped : new Map<string, { readonly rows: Array<string>; readonly widths: Array<number> }>()
    this.wrapped = new Map()
    const rows: Array<string> = []
    const widths: Array<number> = []
    for (const line of frame.lines) {
      let entry = previous.get(line) ?? this.wrapped.get(line)
      if (entry === undefined) {
        const lineRows = wrapLine(line, columns - 1)
        entry = { rows: lineRows, widths: lineRows.map(textWidth) }
      }
      this.wrapped.set(line, entry)
      rows.push(...entry.rows)
      widths.push(...entry.widths)
    }
    this.drawnWidths = widths
    this.drawnColumns = columns
    if (rows.length === 0) {
      this.cursorRow = 0
      return ""
    }
    let out = rows.join("\r\n")
    const last = rows.length - 1
    if (frame.cursor === undefined) {
      this.cursorRow = last
      return `\x1b[?25l${out}`
    }
    const row = Math.min(frame.cursor.row, last)
    out += `${last - row > 0 ? `\x1b[${last - row}A` : ""}\r${frame.cursor.column > 0 ? `\x1b[${frame.cursor.column}C` : ""}\x1b[?25h`
    this.cursorRow = row
    return out
  }

  /** Redraws the live region. */
  live(frame: LiveFrame): void {
    this.frame = inertFrame(frame)
    if (!this.terminal.interactive) return
    this.terminal.write(`\x1b[?2026h${this.eraseSequence()}${this.draw(this.frame)}\x1b[?2026l`)
  }

  /** Writes finished lines above the live region, then redraws it (as `frame` when given). */
  commit(committed: ReadonlyArray<string>, frame?: LiveFrame): void {
    if (committed.length === 0) return
    const lines = committed.map(inertLine)
    if (frame !== undefined) this.frame = inertFrame(frame)
    this.terminal.transcript?.(`${lines.map(stripAnsi).join("\n")}\n`)
    if (!this.terminal.interactive) {
      this.terminal.write(`${lines.join("\n")}\n`)
      return
    }
    const columns = this.terminal.columns()
    const rows = lines.flatMap((line) => wrapLine(line, columns - 1))
    this.terminal.write(`\x1b[?2026h${this.eraseSequence()}${rows.join("\r\n")}\r\n${this.draw(this.frame)}\x1b[?2026l`)
  }

  /** Erases the live region and forgets it (a dialog draws below the output next). */
  clear(): void {
    if (this.terminal.interactive) this.terminal.write(`${this.eraseSequence()}\x1b[?25h`)
    this.drawnWidths = []
    this.cursorRow = 0
    this.frame = { lines: [] }
  }
}
