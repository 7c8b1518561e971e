/** The conversation digest the reviewer reads: newest last, cut sensibly, the operator's latest words always kept. */
import { describe, expect, it } from "vitest"
import { conversationDigest, defaultDigestLimits, truncateText } from "../../../src/engine/conversation-digest.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"

const user = (text: string, extra: Partial<Extract<TranscriptItem, { _tag: "user" }>> = {}): TranscriptItem => ({ _tag: "user", id: text, text, ...extra })
const assistant = (text: string, calls: ReadonlyArray<{ name: string; arguments: unknown }> = []): TranscriptItem => ({
  _tag: "assistant",
  id: text,
  text,
  model: "local/m",
  ...(calls.length === 0 ? {} : { toolCalls: calls.map((call, index) => ({ id: `c${index}`, ...call })) })
})
const result = (name: string, text: string, isError = false): TranscriptItem => ({ _tag: "tool_result", id: text, callId: "c0", name, text, isError })

describe("conversationDigest", () => {
  it("lists user and assistant text, tool calls and results, oldest first", () => {
    const digest = conversationDigest([
      user("Run the tests"),
      assistant("Running them.", [{ name: "bash", arguments: { command: "npm test" } }]),
      result("bash", "exit 1\n2 failing\n"),
      { _tag: "note", id: "n", text: "host note" },
      user("todo reminder", { synthetic: "reminder" }),
      assistant("", [{ name: "read", arguments: { path: "a.ts" } }]),
      result("read", "no such file", true)
    ])
    expect(digest).toBe(
      [
        "[user] Run the tests",
        "[assistant] Running them.",
        '[assistant calls bash] {"command":"npm test"}',
        "[bash result] exit 1\n2 failing",
        '[assistant calls read] {"path":"a.ts"}',
        "[read failed] no such file"
      ].join("\n")
    )
  })

  it("says so when there is nothing yet", () => {
    expect(conversationDigest([])).toBe("(no conversation yet)")
  })

  it("cuts long entries and says how much was left out", () => {
    const long = "x".repeat(defaultDigestLimits.toolResultChars + 50)
    expect(conversationDigest([result("read", long)])).toBe(`[read result] ${"x".repeat(defaultDigestLimits.toolResultChars)}… [50 more characters]`)
    expect(truncateText("ab😀cd", 3)).toBe("ab… [4 more characters]")
  })

  it("drops the oldest entries past the budget but keeps the operator's latest message", () => {
    const limits = { ...defaultDigestLimits, maxChars: 120 }
    const items: Array<TranscriptItem> = [user("first request"), user("Please deploy to staging")]
    for (let index = 0; index < 10; index++) items.push(result("bash", `output number ${index}`))
    const lines = conversationDigest(items, limits).split("\n")
    expect(lines[0]).toBe("[… 1 earlier entry left out]")
    expect(lines[1]).toBe("[user] Please deploy to staging")
    expect(lines[2]).toMatch(/^\[… \d+ earlier entries left out\]$/)
    expect(lines.at(-1)).toBe("[bash result] output number 9")
    expect(lines.join("\n").length).toBeLessThanOrEqual(limits.maxChars + 80)
  })

  it("counts images on user messages without their bytes", () => {
    expect(conversationDigest([user("what is this", { images: [{ sha256: "abc", mime: "image/png" }] })])).toBe("[user] what is this [1 image]")
  })
})
