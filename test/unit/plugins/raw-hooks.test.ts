/**
 * Seed 001's second table: raw hooks may restructure a call, replace prompt and compaction texts,
 * and rewrite a classification; the host refuses only what it cannot represent.
 */
import { describe, expect, it } from "vitest"
import type { Classification } from "../../../src/approval/classification.ts"
import type { PluginModelItem } from "../../../src/plugins/api.ts"
import { rawHookNotes } from "../../../src/plugins/plugin-loader.ts"
import type { ModelRequest } from "../../../src/providers/model-client.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"
import { localModel } from "../../support/model-entry.ts"
import { heldPng, pipelineOf, run, withHooks, withRawHooks } from "../../support/plugins.ts"

const model = (imageInput: boolean) => localModel(undefined, imageInput)

const png = heldPng
const transcript: ReadonlyArray<TranscriptItem> = [
  { _tag: "user", id: "u1", text: "look at [Image #1]", images: [png] },
  {
    _tag: "assistant",
    id: "a1",
    text: "reading",
    model: "other/model",
    reasoning: [{ text: "think", opaque: { protocol: "x", data: 1 } }],
    toolCalls: [{ id: "call_1", name: "read", arguments: { path: "a.txt" }, opaque: { protocol: "x", data: 2 } }]
  },
  { _tag: "tool_result", id: "r1", callId: "call_1", name: "read", text: "1\thello", isError: false },
  { _tag: "user", id: "u2", text: "and now?" }
]
const request = (imageInput = true): ModelRequest => ({ system: "You are a test.", items: transcript, tools: [], model: model(imageInput) })
const held = new Map([[png.sha256, png]])

const rebuilding = (rebuild: (items: ReadonlyArray<PluginModelItem>) => ReadonlyArray<unknown>) =>
  pipelineOf([withRawHooks("acme", { rebuildModel: (r) => ({ ...r, items: rebuild(r.items) as never }) })])

describe("rebuildModel", () => {
  it("drops, reorders, adds and rewrites any item, the system prompt included; the host says who changed the call", async () => {
    const { pipeline, notes } = rebuilding((items) => [
      { id: "system", role: "system", text: "Be terse." },
      items.find((item) => item.id === "u2"),
      { id: "note1", role: "user", text: "extra context" },
      { id: "a1", role: "assistant", text: "rewritten" }
    ])
    const out = await run(pipeline.outbound("work", request(), held))
    expect(notes).toEqual([])
    expect(out.rebuiltBy).toEqual(["acme"])
    expect(out.request.system).toBe("Be terse.")
    expect(out.request.items).toEqual([
      { _tag: "user", id: "u2", text: "and now?" },
      { _tag: "user", id: "note1", text: "extra context" },
      { _tag: "assistant", id: "a1", text: "rewritten", model: "other/model" }
    ])
  })

  it("can split a call from its result; a new result's name comes from its call; rewritten reasoning loses its provider state", async () => {
    const { pipeline } = rebuilding((items) => [
      ...items.filter((item) => item.role !== "tool_result" && item.id !== "u2").map((item) => (item.role === "reasoning" ? { ...item, text: "shorter" } : item)),
      items.find((item) => item.id === "u2"),
      { id: "r2", role: "tool_result", text: "late result", callId: "call_1", name: "ignored" }
    ])
    const out = await run(pipeline.outbound("work", request(), held))
    expect(out.request.items.slice(1)).toEqual([
      { ...transcript[1], reasoning: [{ text: "shorter" }] },
      transcript[3],
      { _tag: "tool_result", id: "r2", callId: "call_1", name: "read", text: "late result", isError: false }
    ])
  })

  it("keeps, drops or moves images the session holds", async () => {
    const { pipeline } = rebuilding((items) => items.map((item) => (item.id === "u1" ? { ...item, images: [] } : item.id === "u2" ? { ...item, images: [{ id: png.sha256 }] } : item)))
    const out = await run(pipeline.outbound("work", request(), held))
    expect(out.request.items[0]).toEqual({ _tag: "user", id: "u1", text: "look at [Image #1]" })
    expect(out.request.items[3]).toEqual({ _tag: "user", id: "u2", text: "and now?", images: [png] })
  })

  type Rebuild = (items: ReadonlyArray<PluginModelItem>) => ReadonlyArray<unknown>
  const cannot: ReadonlyArray<readonly [string, Rebuild, string, boolean]> = [
    ["duplicate an id", (items) => [...items, { ...items[1] }], "it may not repeat an item id (u1)", true],
    ["return empty reasoning", (items) => items.map((item) => (item.role === "reasoning" ? { ...item, text: " " } : item)), "it may not return an empty reasoning text (item a1#reasoning0)", true],
    [
      "name an image the session does not hold",
      (items) => items.map((item) => (item.id === "u2" ? { ...item, images: [{ id: "f".repeat(64), mediaType: "image/png" }] } : item)),
      "item u2 names an image the session does not hold (ffffffffffff…); plugins cannot create images",
      true
    ],
    [
      "add an image to a call that cannot carry one",
      (items) => items.map((item) => (item.id === "u2" ? { ...item, images: [{ id: png.sha256 }] } : item)),
      "item u2 gains an image, but this work call cannot carry images",
      false
    ],
    [
      "change an image's type",
      (items) => items.map((item) => (item.id === "u1" ? { ...item, images: [{ id: png.sha256, mediaType: "image/gif" }] } : item)),
      `item u1 gives image ${png.sha256.slice(0, 12)}… the type image/gif; it is image/png`,
      true
    ],
    ["move the system item", (items) => [...items.slice(1), items[0]], "the system item can only come first (Crystal sends one system text, ahead of the conversation)", true],
    ["answer a call that is nowhere", (items) => [...items, { id: "r9", role: "tool_result", text: "x", callId: "call_9" }], "tool result r9 must name the callId of a tool call in the request (its name is derived from that call)", true]
  ]
  it.each(cannot)("cannot %s", async (_what, rebuild, rule, imageInput) => {
    const { pipeline, notes } = rebuilding(rebuild)
    const original = request(imageInput)
    const out = await run(pipeline.outbound("work", original, held))
    expect(out).toEqual({ request: original, rebuiltBy: [], changed: false })
    expect(notes).toEqual([`Plugin 'acme': rebuildModel result skipped: ${rule}.`])
  })

  it("runs before transformModel, which sees the rebuilt call", async () => {
    const seen: Array<number> = []
    const { pipeline } = pipelineOf([
      withHooks("ordinary", { transformModel: (r) => void seen.push(r.items.length) }),
      withRawHooks("raw", { rebuildModel: (r) => ({ ...r, items: r.items.slice(0, 2) }) })
    ])
    await run(pipeline.outbound("work", request(), held))
    expect(seen).toEqual([2])
  })
})

describe("rewritePrompt and rewriteCompaction", () => {
  it("replace the whole text with any string, the empty one included; the next raw hook sees the replacement", async () => {
    const { pipeline } = pipelineOf([
      withRawHooks("a", { rewritePrompt: ({ text }) => text.toUpperCase(), rewriteCompaction: () => "" }),
      withRawHooks("b", { rewritePrompt: ({ mode, text }) => `${mode}: ${text}` })
    ])
    expect(await run(pipeline.rewritePrompt("plan", "plan text"))).toBe("plan: PLAN TEXT")
    expect(await run(pipeline.compactionPrompt("prompt"))).toBe("")
    expect(await run(pipeline.compactionSummary("prompt", "summary"))).toBe("")
  })

  it("rewriteCompaction runs after onCompaction's appends", async () => {
    const { pipeline } = pipelineOf([
      withRawHooks("raw", { rewriteCompaction: ({ kind, text }) => `[${kind}] ${text}` }),
      withHooks("ordinary", { onCompaction: () => ({ appendToPrompt: "fact" }) })
    ])
    expect(await run(pipeline.compactionPrompt("p"))).toBe("[prompt] p\n\nfact")
  })

  it("a non-string is skipped", async () => {
    const { pipeline, notes } = pipelineOf([withRawHooks("acme", { rewritePrompt: () => 42 as never })])
    expect(await run(pipeline.rewritePrompt("work", "text"))).toBe("text")
    expect(notes).toEqual(["Plugin 'acme': rewritePrompt result skipped: it must return a string or nothing (it returned number)."])
  })
})

describe("rewriteApproval", () => {
  const host: Classification = { risk: "forbidden", authority: "execute", scope: "outside", summary: "run `rm -rf /`", paths: [], ask: true }
  const call = { id: "c", name: "bash", arguments: {} }

  it("after the ordinary hooks, sets any risk, authority, scope, summary and prompt requirement", async () => {
    const { pipeline } = pipelineOf([
      withHooks("ordinary", { onApproval: () => ({ ask: true }) }),
      withRawHooks("raw", { rewriteApproval: (c) => ({ ...c, risk: "low", authority: "read", scope: "workspace", summary: "harmless", ask: false } as never) })
    ])
    expect(await run(pipeline.approval(call, host))).toEqual({ risk: "low", authority: "read", scope: "workspace", summary: "harmless", paths: [] })
  })

  it("refuses only what the policy could not read", async () => {
    const { pipeline, notes } = pipelineOf([withRawHooks("acme", { rewriteApproval: () => ({ risk: "none" }) as never })])
    expect(await run(pipeline.approval(call, host))).toEqual(host)
    expect(notes).toEqual(["Plugin 'acme': rewriteApproval result skipped: 'risk' must be one of low, medium, high, forbidden."])
  })
})

describe("the raw hook notice", () => {
  it("names each plugin that registered a raw hook", () => {
    expect(rawHookNotes([withHooks("plain", { onPrompt: () => "x" }), withRawHooks("Acme", { rewritePrompt: () => "" })])).toEqual(["Plugin 'Acme' registered a raw hook."])
  })
})
