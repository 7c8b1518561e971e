/**
 * A session document as it is written: every text redacted, provider state untouched, a signed
 * reasoning part whose text changed stored without its signature; items redacted once each.
 */
import { describe, expect, it } from "vitest"
import { REDACTED } from "../../../src/secrets/redact.ts"
import { Secrets } from "../../../src/secrets/secrets.ts"
import type { SessionDocument } from "../../../src/session/document.ts"
import type { AssistantMessage, TranscriptItem } from "../../../src/session/items.ts"
import { makeDocumentRedaction, redactDocument, redactItem } from "../../../src/session/redact-document.ts"

const key = "sk-test-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
const secrets = new Secrets([key])

const signed = { protocol: "anthropic", data: { type: "thinking", signature: "c2lnbmF0dXJl" } }

const assistant: AssistantMessage = {
  _tag: "assistant",
  id: "a1",
  model: "anthropic/m",
  text: `Your key is ${key}.`,
  reasoning: [
    { text: `The operator pasted ${key}.`, opaque: signed },
    { text: "Nothing secret here.", opaque: signed }
  ],
  toolCalls: [{ id: "c1", name: "bash", arguments: { command: `echo ${key} | wc -c` }, opaque: { protocol: "openai-responses", data: { itemId: "fc_1" } } }]
}

const doc: SessionDocument = {
  version: 1,
  id: "20250101-000000-abcdef",
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  workspace: "/w",
  title: `About ${key}`,
  model: "anthropic/m",
  mode: "work",
  approval: "default",
  system: "You are a test.",
  items: [
    { _tag: "user", id: "u1", text: `my key: ${key}` },
    assistant,
    { _tag: "tool_result", id: "r1", callId: "c1", name: "bash", text: "52", isError: false },
    { _tag: "note", id: "n1", text: "nothing" },
    { _tag: "compaction", id: "k1", summary: `The key ${key} was used.`, filesTouched: [], todos: [], trigger: "auto", tokensBefore: 10, tokensAfter: 5 }
  ],
  todos: [{ content: `rotate ${key}`, status: "pending", priority: "high" }],
  usage: { inputTokens: 1, outputTokens: 1 }
}

describe("redactDocument", () => {
  it("redacts every text of the document and leaves no piece of the key", () => {
    const redacted = redactDocument(secrets, doc)
    const text = JSON.stringify(redacted)
    expect(text).not.toContain(key.slice(0, 12))
    expect(text).not.toContain(key.slice(-12))
    expect(redacted.title).toBe(`About ${REDACTED}`)
    expect(redacted.todos?.[0]?.content).toBe(`rotate ${REDACTED}`)
    expect(redacted.items[0]).toMatchObject({ text: `my key: ${REDACTED}` })
    expect(redacted.items[4]).toMatchObject({ summary: `The key ${REDACTED} was used.` })
    const message = redacted.items[1] as AssistantMessage
    expect(message.text).toBe(`Your key is ${REDACTED}.`)
    expect(message.toolCalls?.[0]?.arguments).toEqual({ command: `echo ${REDACTED} | wc -c` })
  })

  it("keeps provider state as it is, but stores a signed reasoning part whose text changed without its signature", () => {
    const message = redactItem(secrets, assistant)
    expect(message.reasoning).toEqual([{ text: `The operator pasted ${REDACTED}.` }, { text: "Nothing secret here.", opaque: signed }])
    expect(message.toolCalls?.[0]?.opaque).toBe(assistant.toolCalls?.[0]?.opaque)
    // Opaque state is the provider's: never rewritten, even where it repeats the key.
    const opaque = { protocol: "openai-responses", data: { item: { summary: [{ type: "summary_text", text: key }] } } }
    const call = { id: "c2", name: "bash", arguments: {}, opaque }
    expect(redactItem(secrets, { ...assistant, reasoning: [], toolCalls: [call] }).toolCalls?.[0]).toBe(call)
  })

  it("leaves a document without secrets as it is", () => {
    const clean: SessionDocument = { ...doc, title: "t", todos: [], items: [{ _tag: "user", id: "u", text: "hello" }] }
    expect(redactDocument(secrets, clean)).toBe(clean)
  })
})

describe("makeDocumentRedaction", () => {
  it("redacts each item once while the secrets stay the same, and again when they change", () => {
    const redaction = makeDocumentRedaction()
    const first = redaction(secrets, doc)
    const again = redaction(secrets, { ...doc, items: [...doc.items, { _tag: "note", id: "n2", text: key }] })
    first.items.forEach((item, index) => expect(again.items[index]).toBe(item))
    expect(again.items[5]).toEqual({ _tag: "note", id: "n2", text: REDACTED })
    const more = secrets.with(["Nothing secret here."])
    const changed = redaction(more, doc)
    expect((changed.items[1] as AssistantMessage).reasoning?.[1]).toEqual({ text: REDACTED })
    const items: ReadonlyArray<TranscriptItem> = changed.items
    expect(items[0]).not.toBe(first.items[0])
  })
})
