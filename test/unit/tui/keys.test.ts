import { describe, expect, it } from "vitest"
import { decodeKeys, type Key } from "../../../src/tui/keys.ts"

const key = (name: string, mods: Partial<Record<"ctrl" | "alt" | "shift", boolean>> = {}): Key =>
  ({ type: "key", name, ctrl: false, alt: false, shift: false, ...mods }) as Key

describe("decodeKeys", () => {
  it.each<[string, string, ReadonlyArray<Key>]>([
    ["typed text in one read", "héllo", [{ type: "text", text: "héllo" }]],
    ["enter", "\r", [key("enter")]],
    ["Ctrl+J", "\n", [key("newline")]],
    ["Alt+Enter", "\x1b\r", [key("enter", { alt: true })]],
    ["Shift+Enter (kitty CSI u)", "\x1b[13;2u", [key("enter", { shift: true })]],
    ["Shift+Enter (xterm modifyOtherKeys)", "\x1b[27;2;13~", [key("enter", { shift: true })]],
    ["arrows", "\x1b[A\x1bOB", [key("up"), key("down")]],
    ["Ctrl+Left", "\x1b[1;5D", [key("left", { ctrl: true })]],
    ["Alt+Right", "\x1b[1;3C", [key("right", { alt: true })]],
    ["Home / End / Delete", "\x1b[H\x1b[4~\x1b[3~", [key("home"), key("end"), key("delete")]],
    ["backspace and Alt+Backspace", "\x7f\x1b\x7f", [key("backspace"), key("backspace", { alt: true })]],
    ["Ctrl+C, Ctrl+D", "\x03\x04", [{ type: "ctrl", letter: "c" }, { type: "ctrl", letter: "d" }]],
    ["Alt+B", "\x1bb", [{ type: "alt", char: "b" }]],
    ["a lone Escape", "\x1b", [key("escape")]],
    ["Shift+Tab", "\x1b[Z", [key("backtab", { shift: true })]],
    ["text around a key", "ab\x1b[Dc", [{ type: "text", text: "ab" }, key("left"), { type: "text", text: "c" }]]
  ])("%s", (_name, input, expected) => {
    expect(decodeKeys(input)).toEqual({ keys: expected, rest: "" })
  })

  it("turns a bracketed paste into one paste event, newlines and all", () => {
    expect(decodeKeys("\x1b[200~line 1\r\nline 2\rline 3\x1b[201~x").keys).toEqual([
      { type: "paste", text: "line 1\nline 2\nline 3" },
      { type: "text", text: "x" }
    ])
  })

  it("keeps a paste or escape sequence cut by the read boundary for the next read", () => {
    const first = decodeKeys("hi\x1b[200~part one\n")
    expect(first).toEqual({ keys: [{ type: "text", text: "hi" }], rest: "\x1b[200~part one\n" })
    expect(decodeKeys(`${first.rest}part two\x1b[201~`).keys).toEqual([{ type: "paste", text: "part one\npart two" }])
    expect(decodeKeys("a\x1b[1;5")).toEqual({ keys: [{ type: "text", text: "a" }], rest: "\x1b[1;5" })
  })

  it("drops unknown sequences without losing the text around them", () => {
    expect(decodeKeys("a\x1b[99;99Xb").keys).toEqual([{ type: "text", text: "a" }, { type: "text", text: "b" }])
  })
})
