import { describe, expect, it } from "vitest"
import {
  editorKey,
  editorWith,
  emptyEditor,
  insertAtomic,
  insertText,
  moveTo,
  type EditorResult,
  type EditorState
} from "../../../src/tui/editor-state.ts"
import { decodeKeys } from "../../../src/tui/keys.ts"

/** Feeds raw terminal input through the decoder and the editor, like the app does. */
const type = (state: EditorState, input: string): { state: EditorState; results: Array<EditorResult> } => {
  const results: Array<EditorResult> = []
  let current = state
  for (const key of decodeKeys(input).keys) {
    const result = editorKey(current, key)
    results.push(result)
    if (result._tag === "Edited") current = result.state
  }
  return { state: current, results }
}

const show = (state: EditorState): string => `${state.text.slice(0, state.cursor)}|${state.text.slice(state.cursor)}`

describe("editor state", () => {
  it("types, moves and submits on Enter", () => {
    const { state, results } = type(emptyEditor, "helo\x1b[Dl\x1b[F!\r")
    expect(show(state)).toBe("hello!|")
    expect(results.at(-1)).toEqual({ _tag: "Submit", text: "hello!" })
  })

  it.each([
    ["Alt+Enter", "one\x1b\rtwo"],
    ["Shift+Enter", "one\x1b[13;2utwo"],
    ["Ctrl+J", "one\ntwo"],
    ["a trailing backslash", "one\\\rtwo"]
  ])("inserts a newline with %s", (_name, input) => {
    const { state, results } = type(emptyEditor, input)
    expect(state.text).toBe("one\ntwo")
    expect(results.some((result) => result._tag === "Submit")).toBe(false)
  })

  it("keeps a backslash that is not at the end", () => {
    const { results } = type(editorWith("a\\b"), "\r")
    expect(results).toEqual([{ _tag: "Submit", text: "a\\b" }])
  })

  it("never submits a pasted block by itself", () => {
    const { state, results } = type(emptyEditor, "\x1b[200~first\rsecond\r\x1b[201~")
    expect(state.text).toBe("first\nsecond\n")
    expect(results.every((result) => result._tag === "Edited")).toBe(true)
  })

  it.each([
    ["Ctrl+W deletes the word before", "foo bar baz", "\x17", "foo bar |"],
    ["Alt+Backspace does too", "foo bar baz", "\x1b\x7f", "foo bar |"],
    ["Ctrl+U deletes to the line start", "foo bar", "\x1b[D\x15", "|r"],
    ["Ctrl+A then Ctrl+K kills the line", "foo bar", "\x01\x0b", "|"],
    ["Alt+B / Alt+F move by words", "foo bar baz", "\x1bb\x1bb\x1bf", "foo bar| baz"],
    ["Ctrl+Left moves by words", "foo bar", "\x1b[1;5D", "foo |bar"],
    ["Alt+D deletes the next word", "foo bar baz", "\x01\x1bd", "| bar baz"],
    ["Delete removes under the cursor", "abc", "\x01\x1b[3~", "|bc"],
    ["Ctrl+D inside text deletes forward", "abc", "\x1b[D\x04", "ab|"],
    ["Home and End work on the current line", "ab\ncd", "\x1b[H", "ab\n|cd"]
  ])("%s", (_name, text, input, expected) => {
    expect(show(type(editorWith(text), input).state)).toBe(expected)
  })

  it("moves between lines, and asks for history at the first and last line", () => {
    const start = editorWith("first line\nsecond")
    const up = type(start, "\x1b[A")
    expect(show(up.state)).toBe("first |line\nsecond")
    expect(type(up.state, "\x1b[A").results).toEqual([{ _tag: "HistoryPrevious" }])
    expect(type(start, "\x1b[B").results).toEqual([{ _tag: "HistoryNext" }])
  })

  it("leaves Ctrl+C, Ctrl+D on an empty text, Escape and Tab to the caller", () => {
    for (const input of ["\x03", "\x04", "\x1b", "\t"]) {
      expect(type(emptyEditor, input).results).toEqual([{ _tag: "Unhandled" }])
    }
  })

  describe("atomic spans (for media markers)", () => {
    const withMarker = insertText(insertAtomic(insertText(emptyEditor, "see "), "[Image #1]"), " here")

    it("never puts the cursor inside a span", () => {
      expect(show(moveTo(moveTo(withMarker, 0), 6))).toBe("see [Image #1]| here")
      const fromEnd = moveTo(withMarker, 14)
      expect(show(moveTo(fromEnd, 8))).toBe("see |[Image #1] here")
      const left = type(moveTo(withMarker, 14), "\x1b[D")
      expect(show(left.state)).toBe("see |[Image #1] here")
    })

    it("deletes a span whole and shifts the spans after an edit", () => {
      const atEnd = moveTo(withMarker, 14)
      expect(show(type(atEnd, "\x7f").state)).toBe("see | here")
      const edited = type(moveTo(withMarker, 0), "I ")
      expect(edited.state.spans).toEqual([{ start: 6, end: 16 }])
      expect(type(moveTo(withMarker, 14), "\x1b[D\x1b[3~").state.text).toBe("see  here")
    })

    it("keeps each span's id through edits around it, and word motions and deletions never split one", () => {
      const two = insertAtomic(insertText(insertAtomic(editorWith("a "), "[Image #1]", 1), " b "), "[Image #2]", 2)
      const typedBefore = type(moveTo(two, 0), "xy")
      expect(typedBefore.state.spans).toEqual([
        { start: 4, end: 14, id: 1 },
        { start: 17, end: 27, id: 2 }
      ])
      // Alt+B from the end stops at the marker's start, never inside it.
      expect(show(type(two, "\x1bb").state)).toBe("a [Image #1] b |[Image #2]")
      // Ctrl+W deletes the marker whole, and only the marker.
      const wiped = type(two, "\x17").state
      expect([wiped.text, wiped.spans]).toEqual(["a [Image #1] b ", [{ start: 2, end: 12, id: 1 }]])
      // Home, then Right across the first marker: one step.
      expect(show(type(two, "\x01\x1b[C\x1b[C\x1b[C").state)).toBe("a [Image #1]| b [Image #2]")
    })

    it("treats typed text that spells a marker as plain text", () => {
      const typed = type(emptyEditor, "[Image #3]\x7f").state
      expect([typed.text, typed.spans]).toEqual(["[Image #3", []])
    })
  })
})

describe("keys as the kitty keyboard protocol reports them", () => {
  it("reads Ctrl+C, Shift+Enter, Ctrl+J, Alt+B and Escape", () => {
    const { state, results } = type(editorWith("ab"), "\x1b[13;2u\x1b[106;5ucd\x1b[98;3u")
    expect(show(state)).toBe("ab\n\n|cd")
    expect(type(emptyEditor, "\x1b[99;5u\x1b[27u").results).toEqual([{ _tag: "Unhandled" }, { _tag: "Unhandled" }])
    expect(results.every((result) => result._tag === "Edited")).toBe(true)
  })
})
