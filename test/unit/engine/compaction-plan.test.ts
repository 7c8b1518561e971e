/**
 * The pure parts of compaction: what the model sees after one (context-view.ts), where the cut
 * goes and which files it lists (compaction-plan.ts), and the size estimate (token-estimate.ts).
 */
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { filesTouched, planCompaction } from "../../../src/engine/compaction-plan.ts"
import { contextView } from "../../../src/engine/context-view.ts"
import { estimateContextTokens, estimateItemTokens } from "../../../src/engine/token-estimate.ts"
import { SessionDocument } from "../../../src/session/document.ts"
import type { AssistantMessage, Compaction, ToolResult, TranscriptItem, UserMessage } from "../../../src/session/items.ts"

const user = (id: string, text = id): UserMessage => ({ _tag: "user", id, text })
const assistant = (id: string, text = id, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({ _tag: "assistant", id, text, model: "p/m", ...extra })
const call = (id: string, name: string, args: unknown): AssistantMessage =>
  assistant(id, "", { toolCalls: [{ id: `call-${id}`, name, arguments: args }] })
const result = (id: string, callOf: string, name: string, text: string, isError = false): ToolResult => ({
  _tag: "tool_result",
  id,
  callId: `call-${callOf}`,
  name,
  text,
  isError
})
const compaction = (id: string, firstKeptId: string | undefined, extra: Partial<Compaction> = {}): Compaction => ({
  _tag: "compaction",
  id,
  summary: `summary ${id}`,
  ...(firstKeptId === undefined ? {} : { firstKeptId }),
  filesTouched: [],
  todos: [],
  trigger: "auto",
  tokensBefore: 100,
  tokensAfter: 10,
  ...extra
})

describe("contextView", () => {
  it("is the transcript itself when nothing was compacted (sessions saved before compaction existed)", () => {
    const items: ReadonlyArray<TranscriptItem> = [user("u1"), assistant("a1"), { _tag: "note", id: "n1", text: "a note" }]
    const view = contextView(items)
    expect(view.items).toBe(items)
    expect(view.measuredFrom).toBe(0)
    expect(view.compaction).toBeUndefined()
  })

  it("starts from the latest compaction's summary, then the kept items and what came after", () => {
    const items = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), compaction("c1", "u2"), user("u3")]
    const view = contextView(items)
    expect(view.items.map((item) => item.id)).toEqual(["c1", "u2", "a2", "u3"])
    expect(view.items[0]).toMatchObject({ _tag: "user" })
    expect(view.items[0]?._tag === "user" && view.items[0].text).toContain("summary c1")
    expect(view.items[0]?._tag === "user" && view.items[0].text).toContain("The most recent messages follow verbatim.")
    expect(view.measuredFrom).toBe(3)
  })

  it("keeps nothing from before a compaction that kept nothing verbatim, and only the latest compaction counts", () => {
    const items = [user("u1"), compaction("c1", undefined), user("u2"), assistant("a2"), compaction("c2", "a2"), user("u3")]
    const view = contextView(items)
    expect(view.items.map((item) => item.id)).toEqual(["c2", "a2", "u3"])
    expect(contextView(items.slice(0, 3)).items.map((item) => item.id)).toEqual(["c1", "u2"])
  })
})

const fileTools = new Set(["edit", "write"])

describe("planCompaction", () => {
  const big = "x".repeat(400)

  it("keeps the most recent messages that fit the budget and summarises the rest", () => {
    const items = [user("u1", big), assistant("a1", big), user("u2"), assistant("a2")]
    const plan = planCompaction(items, 50, fileTools)
    expect(plan?.summarized.map((item) => item.id)).toEqual(["u1", "a1"])
    expect(plan?.firstKeptId).toBe("u2")
    expect(plan?.keptCount).toBe(2)
    expect(plan?.prior).toBeUndefined()
  })

  it("never starts the kept part with a tool result cut off from its call", () => {
    const items = [user("u1", big), call("a1", "read", { path: big }), result("r1", "a1", "read", "short"), assistant("a2")]
    const plan = planCompaction(items, estimateItemTokens(items[2] as TranscriptItem) + estimateItemTokens(items[3] as TranscriptItem), fileTools)
    expect(plan?.firstKeptId).toBe("a2")
    expect(plan?.summarized.map((item) => item.id)).toEqual(["u1", "a1", "r1"])
  })

  it("keeps the operator's latest message when everything fits, and summarises all of a lone message", () => {
    expect(planCompaction([user("u1"), assistant("a1"), user("u2")], 10_000, fileTools)?.firstKeptId).toBe("u2")
    const lone = planCompaction([user("u1")], 10_000, fileTools)
    expect(lone?.summarized.map((item) => item.id)).toEqual(["u1"])
    expect(lone?.firstKeptId).toBeUndefined()
  })

  it("keeps the operator's new message verbatim even with no budget, but not the steps of a turn under way", () => {
    expect(planCompaction([user("u1"), assistant("a1"), user("u2")], 0, fileTools)?.firstKeptId).toBe("u2")
    const midTurn = planCompaction([user("u1"), call("a1", "read", { path: "x" }), result("r1", "a1", "read", "text")], 0, fileTools)
    expect(midTurn?.firstKeptId).toBeUndefined()
    expect(midTurn?.summarized).toHaveLength(3)
  })

  it("has nothing to do without messages, or right after a compaction that kept nothing", () => {
    expect(planCompaction([], 0, fileTools)).toBeUndefined()
    expect(planCompaction([{ _tag: "note", id: "n", text: "only a note" }], 0, fileTools)).toBeUndefined()
    expect(planCompaction([user("u1"), compaction("c1", undefined)], 0, fileTools)).toBeUndefined()
  })

  it("after a compaction, summarises only what the model still sees and carries the earlier files", () => {
    const items = [
      user("u1", big),
      compaction("c1", undefined, { filesTouched: ["old.ts"] }),
      user("u2", big),
      call("a2", "edit", { path: "new.ts", old: "a", new: "b" }),
      result("r2", "a2", "edit", "edited"),
      user("u3")
    ]
    const plan = planCompaction(items, 10, fileTools)
    expect(plan?.prior?.id).toBe("c1")
    expect(plan?.summarized.map((item) => item.id)).toEqual(["u2", "a2", "r2"])
    expect(plan?.filesTouched).toEqual(["old.ts", "new.ts"])
  })
})

describe("filesTouched", () => {
  it("lists the paths of edit and write calls that succeeded, once each, in order", () => {
    const items = [
      call("a1", "write", { path: "a.txt", content: "" }),
      result("r1", "a1", "write", "created"),
      call("a2", "edit", { path: "b.txt" }),
      result("r2", "a2", "edit", "no match", true),
      call("a3", "read", { path: "c.txt" }),
      result("r3", "a3", "read", "text"),
      call("a4", "edit", { path: "a.txt" }),
      result("r4", "a4", "edit", "edited"),
      call("a5", "write", { path: "never-answered.txt" })
    ]
    expect(filesTouched(items, fileTools)).toEqual(["a.txt"])
    expect(filesTouched(items, fileTools, ["z.txt"])).toEqual(["z.txt", "a.txt"])
  })
})

describe("estimateContextTokens", () => {
  const usage = { inputTokens: 1_000, outputTokens: 200 }

  it("takes the provider's count of the latest response and adds what came after it", () => {
    const items = [user("u1"), assistant("a1", "answer", { usage }), user("u2", "x".repeat(400))]
    expect(estimateContextTokens({ system: "s", items, measuredFrom: 0, tools: [] })).toBe(1_200 + 4 + 100)
  })

  it("ignores counts made on the longer context before a compaction", () => {
    const items = [user("u1", "x".repeat(40)), assistant("a1", "y".repeat(40), { usage })]
    const estimate = estimateContextTokens({ system: "z".repeat(40), items, measuredFrom: 2, tools: [] })
    // system 10, "[]" of no tools 1, each message 4 + 10
    expect(estimate).toBe(10 + 1 + 14 + 14)
  })
})

describe("saved sessions", () => {
  it("decode with and without compaction records", () => {
    const base = {
      version: 1,
      id: "20261130-000000-abcdef",
      createdAt: "2026-11-30T00:00:00.000Z",
      updatedAt: "2026-11-30T00:00:00.000Z",
      workspace: "/w",
      model: "p/m",
      mode: "work",
      approval: "default",
      usage: { inputTokens: 0, outputTokens: 0 }
    }
    const decode = Schema.decodeUnknownSync(SessionDocument)
    expect(decode({ ...base, items: [user("u1"), assistant("a1")] }).items).toHaveLength(2)
    const withRecord = decode({ ...base, items: [user("u1"), compaction("c1", undefined, { todos: [{ content: "t", status: "pending", priority: "low" }] })] })
    expect(withRecord.items[1]).toMatchObject({ _tag: "compaction", todos: [{ content: "t" }] })
  })
})
