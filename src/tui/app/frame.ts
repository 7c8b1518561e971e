/**
 * The live region drawn from the app's state: pure (state + the terminal's size and the time →
 * lines and a cursor), so what shows is a table of cases (test/unit/tui/app-frame.test.ts). From
 * the top: the unfinished line of the answer, the spinner or activity, the queued prompts, the
 * editor, the menu, an attach running, a hint, the status line.
 */
import type { Palette } from "../../terminal/colors.ts"
import { layoutEditor, promptMark, type EditorLayout } from "../editor-view.ts"
import type { LiveFrame } from "../screen.ts"
import { statusLine } from "../status-line.ts"
import { clipText, wrapLine } from "../width.ts"
import type { AppState } from "./state.ts"

const spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

export interface FrameContext {
  readonly palette: Palette
  readonly columns: number
  readonly rows: number
  readonly now: number
  /** What an image attach is doing ("reading the clipboard…"), while one runs. */
  readonly attaching: string | undefined
}

const placeholder = "Ask anything · / commands · @ files · Shift+Enter new line"

const aboveEditor = (state: AppState, context: FrameContext, width: number): Array<string> => {
  const { palette } = context
  const above: Array<string> = []
  if (state.turnSince !== undefined) {
    const seconds = Math.floor((context.now - state.turnSince) / 1000)
    above.push(`${palette.cyan(spinner[state.tick % spinner.length] ?? "")} ${state.activity ?? palette.dim("working…")} ${palette.dim(`${seconds} s · Ctrl+C cancels`)}`)
  } else if (state.activity !== undefined) above.push(state.activity)
  for (const line of state.agents) above.push(palette.dim(clipText(line, width)))
  for (const queued of state.queue) above.push(palette.dim(clipText(`queued: ${queued.text.replace(/\n/g, " ")}`, width)))
  return above
}

const belowEditor = (state: AppState, context: FrameContext, width: number): Array<string> => {
  const { palette, attaching } = context
  const below: Array<string> = []
  const completion = state.completion
  if (completion !== undefined) {
    completion.items.forEach((item, index) => {
      const label = item.value.padEnd(completion.kind === "command" ? 16 : 0)
      const line = clipText(`${label}  ${item.description}`.trimEnd(), width - 2)
      below.push(index === completion.selected ? `${palette.cyan("›")} ${palette.bold(line)}` : `  ${palette.dim(line)}`)
    })
  }
  if (attaching !== undefined) below.push(palette.dim(clipText(`${attaching} · Ctrl+C cancels`, width)))
  if (state.hint !== undefined && state.hint.until > context.now) below.push(palette.yellow(state.hint.text))
  below.push(palette.dim(statusLine(state.status, width)))
  return below
}

const editorRows = (state: AppState, context: FrameContext, width: number): EditorLayout =>
  state.editor.text === ""
    ? { rows: [`${promptMark}${context.palette.dim(placeholder)}`], cursorRow: 0, cursorColumn: promptMark.length }
    : layoutEditor(state.editor, width + 1, context.palette.magenta)

export const frame = (state: AppState, context: FrameContext): LiveFrame => {
  const width = context.columns - 1
  const layout = editorRows(state, context, width)
  const below = belowEditor(state, context, width)
  // Wrapped here, so the cursor's row is known whatever the width.
  // A very long unfinished line shows its end; it is committed whole once its newline arrives.
  const partialRows = state.partial === "" ? [] : wrapLine(state.partial, width).slice(-Math.max(1, Math.floor(context.rows / 3)))
  const aboveRows = [...partialRows, ...aboveEditor(state, context, width).flatMap((line) => wrapLine(line, width))]
  // A live region taller than the screen could not be redrawn in place: long input shows a window around the cursor.
  const room = Math.max(1, context.rows - aboveRows.length - below.length - 1)
  const first = Math.max(0, Math.min(layout.cursorRow - Math.floor(room / 2), layout.rows.length - room))
  return {
    lines: [...aboveRows, ...layout.rows.slice(first, first + room), ...below],
    cursor: { row: aboveRows.length + layout.cursorRow - first, column: layout.cursorColumn }
  }
}
