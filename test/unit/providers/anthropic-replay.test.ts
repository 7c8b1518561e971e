import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import type { AssistantMessage, ReasoningPart, TranscriptItem } from "../../../src/session/items.ts"
import { anthropicEvent } from "../../support/fake-llm/anthropic.ts"
import { anthropicSetup, messageEnd, messageStart, sseHeaders } from "./anthropic-fixtures.ts"
import { collect, requestFor } from "./fixtures.ts"

/** The assistant message the engine would record from these events. */
const recorded = (events: ReadonlyArray<ModelEvent>, model: string): AssistantMessage => {
  let text = ""
  let open = ""
  const reasoning: Array<ReasoningPart> = []
  const toolCalls: Array<{ id: string; name: string; arguments: unknown }> = []
  for (const event of events) {
    if (event.type === "text_delta") text += event.text
    if (event.type === "reasoning_delta") open += event.text
    if (event.type === "reasoning_end") {
      reasoning.push({ text: open, ...(event.opaque === undefined ? {} : { opaque: event.opaque }) })
      open = ""
    }
    if (event.type === "tool_call") toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments })
  }
  return { _tag: "assistant", id: "a1", text, model, reasoning, toolCalls }
}

const assistantContent = (body: unknown): unknown => {
  const messages = (body as { messages: ReadonlyArray<{ role: string; content: unknown }> }).messages // parsed request JSON
  return messages.find((message) => message.role === "assistant")?.content
}

describe("anthropic adapter: replaying thinking", () => {
  it.scopedLive("sends thinking text and signature back exactly as received, first in the assistant message", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup({ capabilities: { reasoning: true } })
      fake.script([
        {
          reasoning: ["The file ", "is probably a.ts."],
          text: "Reading it.",
          toolCalls: [{ id: "toolu_1", name: "read_file", arguments: { path: "a.ts" } }]
        },
        { text: "Done." }
      ])
      const first = yield* collect(client.stream(requestFor(model)))
      const opaque = first.find((event) => event.type === "reasoning_end")?.opaque
      const { signature } = opaque?.data as { signature: string } // opaque data is unknown by design
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "hello" },
        recorded(first, model.ref),
        { _tag: "tool_result", id: "r1", callId: "toolu_1", name: "read_file", text: "const a = 1", isError: false }
      ]
      yield* collect(client.stream(requestFor(model, { items })))
      const second = fake.requests[1]
      expect(assistantContent(second?.body)).toEqual([
        { type: "thinking", thinking: "The file is probably a.ts.", signature },
        { type: "text", text: "Reading it." },
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } }
      ])
      expect(second?.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 4_096 } })
      // Byte for byte: the signature string is in the raw body unchanged.
      expect(second?.rawBody).toContain(JSON.stringify(signature))
    })
  )

  it.scopedLive("replays redacted thinking opaque, in order with visible thinking", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup({ capabilities: { reasoning: true } })
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            messageStart(),
            anthropicEvent("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }),
            anthropicEvent("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "first" } }),
            anthropicEvent("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: "c2lnLTE=" } }),
            anthropicEvent("content_block_stop", { index: 0 }),
            anthropicEvent("content_block_start", { index: 1, content_block: { type: "redacted_thinking", data: "ENCRYPTED+/=" } }),
            anthropicEvent("content_block_stop", { index: 1 }),
            anthropicEvent("content_block_start", { index: 2, content_block: { type: "tool_use", id: "toolu_9", name: "ls", input: {} } }),
            anthropicEvent("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: "{}" } }),
            anthropicEvent("content_block_stop", { index: 2 }),
            ...messageEnd("tool_use", { output_tokens: 7 })
          ]
        },
        { text: "ok" }
      ])
      const first = yield* collect(client.stream(requestFor(model)))
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "hello" },
        recorded(first, model.ref),
        { _tag: "tool_result", id: "r1", callId: "toolu_9", name: "ls", text: "a.ts", isError: false }
      ]
      yield* collect(client.stream(requestFor(model, { items })))
      expect(assistantContent(fake.requests[1]?.body)).toEqual([
        { type: "thinking", thinking: "first", signature: "c2lnLTE=" },
        { type: "redacted_thinking", data: "ENCRYPTED+/=" },
        { type: "tool_use", id: "toolu_9", name: "ls", input: {} }
      ])
    })
  )

  it.scopedLive("drops reasoning of other protocols, other models and thinking without a signature", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ text: "ok" }])
      const reasoning: ReadonlyArray<ReasoningPart> = [
        { text: "from the responses API", opaque: { protocol: "openai-responses", data: { encrypted_content: "gAAA" } } },
        { text: "cut before its signature" },
        { text: "signature missing", opaque: { protocol: "anthropic", data: { type: "thinking" } } },
        { text: "kept", opaque: { protocol: "anthropic", data: { type: "thinking", signature: "c2ln" } } }
      ]
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "one" },
        { _tag: "assistant", id: "a1", text: "Same model.", model: model.ref, reasoning },
        { _tag: "user", id: "u2", text: "two" },
        {
          _tag: "assistant",
          id: "a2",
          text: "Other model.",
          model: "claude/another-claude",
          reasoning: [
            { text: "signed by another model", opaque: { protocol: "anthropic", data: { type: "thinking", signature: "b3RoZXI=" } } }
          ]
        },
        { _tag: "user", id: "u3", text: "three" }
      ]
      yield* collect(client.stream(requestFor(model, { items })))
      const messages = (fake.requests[0]?.body as { messages: ReadonlyArray<unknown> }).messages // parsed request JSON
      expect(messages).toEqual([
        { role: "user", content: [{ type: "text", text: "one" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "kept", signature: "c2ln" },
            { type: "text", text: "Same model." }
          ]
        },
        { role: "user", content: [{ type: "text", text: "two" }] },
        { role: "assistant", content: [{ type: "text", text: "Other model." }] },
        { role: "user", content: [{ type: "text", text: "three" }] }
      ])
    })
  )
})
