import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import { responsesInput } from "../../../src/providers/openai-responses-encode.ts"
import type { AssistantMessage, OpaqueState, TranscriptItem } from "../../../src/session/items.ts"
import { fakeEncryptedReasoning } from "../../support/fake-llm/openai-responses.ts"
import { collect, requestFor } from "./fixtures.ts"
import { responsesSetup } from "./openai-responses-setup.ts"

/** The assistant message the engine would store for these events. */
const assistantFrom = (events: ReadonlyArray<ModelEvent>, model: string): AssistantMessage => {
  let text = ""
  let reasoningText = ""
  const reasoning: Array<{ text: string; opaque?: OpaqueState }> = []
  const toolCalls: Array<{ id: string; name: string; arguments: unknown; opaque?: OpaqueState }> = []
  for (const event of events) {
    if (event.type === "text_delta") text += event.text
    if (event.type === "reasoning_delta") reasoningText += event.text
    if (event.type === "reasoning_end") {
      reasoning.push({ text: reasoningText, ...(event.opaque ? { opaque: event.opaque } : {}) })
      reasoningText = ""
    }
    if (event.type === "tool_call") {
      toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments, ...(event.opaque ? { opaque: event.opaque } : {}) })
    }
  }
  return { _tag: "assistant", id: "a1", text, model, reasoning, toolCalls, finishReason: "tool_calls" }
}

const reasoningState = (outputIndex: number, id: string, encrypted?: string): OpaqueState => ({
  protocol: "openai-responses",
  data: {
    outputIndex,
    item: { type: "reasoning", id, summary: [], ...(encrypted === undefined ? {} : { encrypted_content: encrypted }) }
  }
})
const callState = (outputIndex: number, itemId: string): OpaqueState => ({ protocol: "openai-responses", data: { outputIndex, itemId } })

const modelRef = "openai/gpt-test"
const assistant = (fields: Partial<AssistantMessage>): AssistantMessage => ({
  _tag: "assistant",
  id: "a1",
  text: "",
  model: modelRef,
  finishReason: "tool_calls",
  ...fields
})
const input = (message: AssistantMessage) => responsesInput([message], modelRef)

describe("openai-responses adapter: replaying reasoning", () => {
  it.scopedLive("sends reasoning, text and calls back as received, in the order the model produced them", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([
        { reasoning: "Plan: list the files.", text: "Checking.", toolCalls: [{ id: "call_1", name: "ls", arguments: { path: "." } }] },
        { text: "Two files." }
      ])
      const question: TranscriptItem = { _tag: "user", id: "u1", text: "What is here?" }
      const first = yield* collect(client.stream(requestFor(model, { items: [question] })))
      const items: ReadonlyArray<TranscriptItem> = [
        question,
        assistantFrom(first, model.ref),
        { _tag: "tool_result", id: "r1", callId: "call_1", name: "ls", text: "a.ts\nb.ts", isError: false }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { items })))
      expect(fake.requests[1]?.body).toHaveProperty("input", [
        { type: "message", role: "user", content: "What is here?" },
        {
          type: "reasoning",
          id: "rs_fake000001x0",
          summary: [{ type: "summary_text", text: "Plan: list the files." }],
          encrypted_content: fakeEncryptedReasoning(1, 0)
        },
        { type: "message", role: "assistant", content: "Checking." },
        { type: "function_call", id: "fc_fake000001x2", call_id: "call_1", name: "ls", arguments: '{"path":"."}' },
        { type: "function_call_output", call_id: "call_1", output: "a.ts\nb.ts" }
      ])
    })
  )

  it("puts the text where no reasoning item or call stood", () => {
    const message = assistant({
      text: "Let me look.",
      reasoning: [{ text: "", opaque: reasoningState(1, "rs_1", "enc1") }],
      toolCalls: [{ id: "call_1", name: "ls", arguments: {}, opaque: callState(2, "fc_1") }]
    })
    expect(input(message).map((item) => item.type)).toEqual(["message", "reasoning", "function_call"])
  })

  it("interleaves several reasoning items and calls by output index", () => {
    const message = assistant({
      reasoning: [
        { text: "a", opaque: reasoningState(0, "rs_a", "enc_a") },
        { text: "b", opaque: reasoningState(2, "rs_b", "enc_b") }
      ],
      toolCalls: [
        { id: "call_1", name: "ls", arguments: {}, opaque: callState(1, "fc_1") },
        { id: "call_2", name: "ls", arguments: {}, opaque: callState(3, "fc_2") }
      ]
    })
    expect(input(message).map((item) => ("id" in item ? item.id : item.type))).toEqual(["rs_a", "fc_1", "rs_b", "fc_2"])
  })

  it("drops reasoning of another model, and the call ids that point to it", () => {
    const message = assistant({
      model: "openai/gpt-other",
      reasoning: [{ text: "a", opaque: reasoningState(0, "rs_a", "enc_a") }],
      toolCalls: [{ id: "call_1", name: "ls", arguments: {}, opaque: callState(1, "fc_1") }]
    })
    expect(input(message)).toEqual([{ type: "function_call", call_id: "call_1", name: "ls", arguments: "{}" }])
  })

  it("drops reasoning state of another protocol and state it cannot read", () => {
    const message = assistant({
      text: "Done.",
      reasoning: [
        { text: "a", opaque: { protocol: "anthropic", data: { signature: "sig" } } },
        { text: "b", opaque: { protocol: "openai-responses", data: { nonsense: true } } }
      ]
    })
    expect(input(message)).toEqual([{ type: "message", role: "assistant", content: "Done." }])
  })

  it("drops reasoning without encrypted content: with nothing stored, its id refers to nothing", () => {
    const message = assistant({
      reasoning: [{ text: "a", opaque: reasoningState(0, "rs_a") }],
      toolCalls: [{ id: "call_1", name: "ls", arguments: {}, opaque: callState(1, "fc_1") }]
    })
    expect(input(message)).toEqual([{ type: "function_call", call_id: "call_1", name: "ls", arguments: "{}" }])
  })

  it("drops the reasoning of an incomplete message, keeping its text", () => {
    const message = assistant({
      text: "Half an ans",
      incomplete: true,
      reasoning: [{ text: "a", opaque: reasoningState(0, "rs_a", "enc_a") }]
    })
    expect(input(message)).toEqual([{ type: "message", role: "assistant", content: "Half an ans" }])
  })

  it("drops reasoning that nothing followed", () => {
    const message = assistant({ finishReason: "length", reasoning: [{ text: "a", opaque: reasoningState(0, "rs_a", "enc_a") }] })
    expect(input(message)).toEqual([])
  })

  it("sends calls of other protocols after the text, in their order", () => {
    const message = assistant({
      model: "local/test-model",
      text: "Two calls.",
      toolCalls: [
        { id: "c1", name: "ls", arguments: { path: "." } },
        { id: "c2", name: "grep", arguments: { pattern: "x" } }
      ]
    })
    expect(input(message)).toEqual([
      { type: "message", role: "assistant", content: "Two calls." },
      { type: "function_call", call_id: "c1", name: "ls", arguments: '{"path":"."}' },
      { type: "function_call", call_id: "c2", name: "grep", arguments: '{"pattern":"x"}' }
    ])
  })
})
