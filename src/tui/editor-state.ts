/**
 * The input editor's state and its key handling, as pure functions. Text is one string with "\n"
 * between lines and a cursor index into it. Atomic spans (a later `[Image #N]` marker, say) are
 * ranges the cursor never stops inside and that edits remove whole: every change goes through
 * `replaceRange`, every move through `moveTo`, which keep that promise.
 */
import type { Key } from "./keys.ts"

export interface AtomicSpan {
  /** [start, end) in the text. */
  readonly start: number
  readonly end: number
  /** What the span stands for, to its owner (the attached image of a marker). */
  readonly id?: number
}

export interface EditorState {
  readonly text: string
  readonly cursor: number
  readonly spans: ReadonlyArray<AtomicSpan>
}

export const emptyEditor: EditorState = { text: "", cursor: 0, spans: [] }

export const editorWith = (text: string): EditorState => ({ text, cursor: text.length, spans: [] })

const spanAround = (state: EditorState, index: number): AtomicSpan | undefined =>
  state.spans.find((span) => index > span.start && index < span.end)

/** Moves the cursor; a target inside an atomic span snaps to the span's edge in the direction of travel. */
export const moveTo = (state: EditorState, target: number): EditorState => {
  let cursor = Math.max(0, Math.min(state.text.length, target))
  const span = spanAround({ ...state, cursor }, cursor)
  if (span !== undefined) cursor = target >= state.cursor ? span.end : span.start
  return cursor === state.cursor ? state : { ...state, cursor }
}

/** Replaces [from, to) with `text` (widened to whole spans it touches) and puts the cursor after it. */
export const replaceRange = (state: EditorState, from: number, to: number, text: string, atomic: boolean | { readonly id: number } = false): EditorState => {
  let start = Math.min(from, to)
  let end = Math.max(from, to)
  for (const span of state.spans) {
    if (span.start < end && span.end > start) {
      start = Math.min(start, span.start)
      end = Math.max(end, span.end)
    }
  }
  const delta = text.length - (end - start)
  const spans: Array<AtomicSpan> = []
  for (const span of state.spans) {
    if (span.end <= start) spans.push(span)
    else if (span.start >= end) spans.push({ ...span, start: span.start + delta, end: span.end + delta })
  }
  if (atomic !== false && text !== "") spans.push({ start, end: start + text.length, ...(atomic === true ? {} : { id: atomic.id }) })
  spans.sort((a, b) => a.start - b.start)
  return { text: state.text.slice(0, start) + text + state.text.slice(end), cursor: start + text.length, spans }
}

export const insertText = (state: EditorState, text: string): EditorState => replaceRange(state, state.cursor, state.cursor, text)

/** Inserts text the cursor and deletions treat as one character (for media markers); `id` names what it stands for. */
export const insertAtomic = (state: EditorState, text: string, id?: number): EditorState =>
  replaceRange(state, state.cursor, state.cursor, text, id === undefined ? true : { id })

const isWordChar = (char: string | undefined): boolean => char !== undefined && /[\p{L}\p{N}_]/u.test(char)

export const wordStartBefore = (text: string, index: number): number => {
  let i = index
  while (i > 0 && !isWordChar(text[i - 1])) i--
  while (i > 0 && isWordChar(text[i - 1])) i--
  return i
}

export const wordEndAfter = (text: string, index: number): number => {
  let i = index
  while (i < text.length && !isWordChar(text[i])) i++
  while (i < text.length && isWordChar(text[i])) i++
  return i
}

export const lineStartOf = (text: string, index: number): number => text.lastIndexOf("\n", index - 1) + 1

export const lineEndOf = (text: string, index: number): number => {
  const end = text.indexOf("\n", index)
  return end < 0 ? text.length : end
}

/** Row and column of the cursor (both 0-based, in characters). */
export const cursorPosition = (state: EditorState): { readonly row: number; readonly column: number } => {
  const before = state.text.slice(0, state.cursor)
  const row = before.split("\n").length - 1
  return { row, column: state.cursor - lineStartOf(state.text, state.cursor) }
}

const verticalMove = (state: EditorState, direction: -1 | 1): EditorState | undefined => {
  const { text, cursor } = state
  const start = lineStartOf(text, cursor)
  const column = cursor - start
  if (direction < 0) {
    if (start === 0) return undefined
    const previousStart = lineStartOf(text, start - 1)
    return moveTo(state, Math.min(previousStart + column, start - 1))
  }
  const end = lineEndOf(text, cursor)
  if (end === text.length) return undefined
  const nextStart = end + 1
  return moveTo(state, Math.min(nextStart + column, lineEndOf(text, nextStart)))
}

export type EditorResult =
  | { readonly _tag: "Edited"; readonly state: EditorState }
  | { readonly _tag: "Submit"; readonly text: string }
  /** Up on the first line / Down on the last line: the caller walks the history. */
  | { readonly _tag: "HistoryPrevious" }
  | { readonly _tag: "HistoryNext" }
  /** Not an editing key (Ctrl+C, Escape, Tab, ...): the caller decides. */
  | { readonly _tag: "Unhandled" }

const edited = (state: EditorState): EditorResult => ({ _tag: "Edited", state })

const backspace = (state: EditorState): EditorState =>
  state.cursor === 0 ? state : replaceRange(state, state.cursor - 1, state.cursor, "")

const deleteForward = (state: EditorState): EditorState =>
  state.cursor >= state.text.length ? state : replaceRange(state, state.cursor, state.cursor + 1, "")

/** Enter submits, unless the character before the cursor at the end of the text is `\`: that becomes a newline. */
const enter = (state: EditorState): EditorResult => {
  if (state.cursor === state.text.length && state.text.endsWith("\\")) {
    return edited(replaceRange(state, state.cursor - 1, state.cursor, "\n"))
  }
  return { _tag: "Submit", text: state.text }
}

const vertical = (state: EditorState, direction: -1 | 1): EditorResult => {
  const moved = verticalMove(state, direction)
  if (moved !== undefined) return edited(moved)
  return direction < 0 ? { _tag: "HistoryPrevious" } : { _tag: "HistoryNext" }
}

export const editorKey = (state: EditorState, input: Key): EditorResult => {
  const { text, cursor } = state
  switch (input.type) {
    case "text":
      return edited(insertText(state, input.text))
    case "paste":
      return edited(insertText(state, input.text))
    case "alt":
      switch (input.char.toLowerCase()) {
        case "b":
          return edited(moveTo(state, wordStartBefore(text, cursor)))
        case "f":
          return edited(moveTo(state, wordEndAfter(text, cursor)))
        case "d":
          return edited(replaceRange(state, cursor, wordEndAfter(text, cursor), ""))
        default:
          return { _tag: "Unhandled" }
      }
    case "ctrl":
      switch (input.letter) {
        case "a":
          return edited(moveTo(state, lineStartOf(text, cursor)))
        case "e":
          return edited(moveTo(state, lineEndOf(text, cursor)))
        case "b":
          return edited(moveTo(state, cursor - 1))
        case "f":
          return edited(moveTo(state, cursor + 1))
        case "h":
          return edited(backspace(state))
        // Ctrl+J as the kitty keyboard protocol reports it (legacy terminals send a bare "\n").
        case "j":
          return edited(insertText(state, "\n"))
        case "w":
          return edited(replaceRange(state, wordStartBefore(text, cursor), cursor, ""))
        case "u":
          // At a line start, join with the line above (so repeated Ctrl+U clears a multi-line text).
          return edited(replaceRange(state, cursor === lineStartOf(text, cursor) ? Math.max(0, cursor - 1) : lineStartOf(text, cursor), cursor, ""))
        case "k": {
          const end = lineEndOf(text, cursor)
          return edited(replaceRange(state, cursor, end === cursor ? Math.min(text.length, cursor + 1) : end, ""))
        }
        case "p":
          return vertical(state, -1)
        case "n":
          return vertical(state, 1)
        case "d":
          return text === "" ? { _tag: "Unhandled" } : edited(deleteForward(state))
        default:
          return { _tag: "Unhandled" }
      }
    case "key":
      switch (input.name) {
        case "enter":
          return input.shift || input.alt ? edited(insertText(state, "\n")) : enter(state)
        case "newline":
          return edited(insertText(state, "\n"))
        case "backspace":
          return edited(input.alt || input.ctrl ? replaceRange(state, wordStartBefore(text, cursor), cursor, "") : backspace(state))
        case "delete":
          return edited(deleteForward(state))
        case "left":
          return edited(moveTo(state, input.ctrl || input.alt ? wordStartBefore(text, cursor) : cursor - 1))
        case "right":
          return edited(moveTo(state, input.ctrl || input.alt ? wordEndAfter(text, cursor) : cursor + 1))
        case "home":
          return edited(moveTo(state, input.ctrl ? 0 : lineStartOf(text, cursor)))
        case "end":
          return edited(moveTo(state, input.ctrl ? text.length : lineEndOf(text, cursor)))
        case "up":
          return vertical(state, -1)
        case "down":
          return vertical(state, 1)
        default:
          return { _tag: "Unhandled" }
      }
  }
}
