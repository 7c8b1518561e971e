import { describe, expect, it } from "vitest"
import { plainPalette } from "../../../src/terminal/colors.ts"
import { recap } from "../../../src/tui/recap.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"

const user = (text: string): TranscriptItem => ({ _tag: "user", id: text, text })
const answer = (text: string, extra: object = {}): TranscriptItem => ({ _tag: "assistant", id: `a${text}`, text, model: "m", ...extra })

describe("recap of a resumed session", () => {
  it("shows the last exchanges as they streamed, and counts the earlier prompts", () => {
    const items: Array<TranscriptItem> = [
      user("one"),
      answer("first"),
      user("two"),
      answer("", { toolCalls: [{ id: "c", name: "read", arguments: { path: "a.ts" } }] }),
      { _tag: "tool_result", id: "r", callId: "c", name: "read", text: "x", isError: false },
      answer("# Title\nbody"),
      user("three\nmore"),
      answer("cut sh", { incomplete: true })
    ]
    expect(recap(items, plainPalette, 80)).toEqual([
      "… 1 earlier prompt",
      "› two",
      "● read a.ts",
      "# Title",
      "body",
      "› three",
      "  more",
      "cut sh",
      "⏹ cancelled · the partial answer is kept",
      "── resumed ──",
      ""
    ])
  })

  it("is empty for a session without prompts", () => {
    expect(recap([], plainPalette, 80)).toEqual([])
  })
})
