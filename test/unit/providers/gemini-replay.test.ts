import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import type { AssistantMessage, ReasoningPart, ToolCall, TranscriptItem } from "../../../src/session/items.ts"
import { fakeThoughtSignature } from "../../support/fake-llm/gemini.ts"
import { field } from "../../support/fake-llm/json.ts"
import { collect, requestFor } from "./fixtures.ts"
import { geminiSetup } from "./gemini-fixtures.ts"

/** What the engine stores for a response: reasoning parts as they close, tool calls as they come. */
const messageFrom = (id: string, events: ReadonlyArray<ModelEvent>): AssistantMessage => {
  let text = ""
  let open: string | undefined
  const reasoning: Array<ReasoningPart> = []
  const toolCalls: Array<ToolCall> = []
  for (const event of events) {
    if (event.type === "text_delta") text += event.text
    if (event.type === "reasoning_delta") open = (open ?? "") + event.text
    if (event.type === "reasoning_end") {
      reasoning.push({ text: open ?? "", ...(event.opaque === undefined ? {} : { opaque: event.opaque }) })
      open = undefined
    }
    if (event.type === "tool_call") {
      toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments, ...(event.opaque === undefined ? {} : { opaque: event.opaque }) })
    }
  }
  return { _tag: "assistant", id, text, model: "gem/gemini-test", reasoning, toolCalls }
}

const contentsOf = (body: unknown): unknown => field(body, "contents")

describe("gemini adapter: replay of thought signatures", () => {
  it.scopedLive("sends thoughts, signatures and calls back exactly as they came, pairing results by name and order", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup({ capabilities: { reasoning: true } })
      fake.script([
        {
          reasoning: "Plan.",
          text: "Looking.",
          toolCalls: [
            { name: "read_file", arguments: { path: "a.ts" } },
            { name: "ls", arguments: { path: "." } }
          ]
        },
        { reasoning: ["Done ", "thinking."], text: "All good." },
        { text: "You're welcome." }
      ])
      const items: Array<TranscriptItem> = [{ _tag: "user", id: "u1", text: "fix a.ts" }]
      const first = messageFrom("a1", yield* collect(client.stream(requestFor(model, { items }))))
      const [readCall, lsCall] = first.toolCalls ?? []
      items.push(
        first,
        { _tag: "tool_result", id: "r1", callId: readCall?.id ?? "", name: "read_file", text: "const a = 1", isError: false },
        { _tag: "tool_result", id: "r2", callId: lsCall?.id ?? "", name: "ls", text: "a.ts", isError: false }
      )
      const second = messageFrom("a2", yield* collect(client.stream(requestFor(model, { items }))))
      items.push(second, { _tag: "user", id: "u2", text: "thanks" })
      yield* Stream.runDrain(client.stream(requestFor(model, { items })))

      const firstStep = [
        { role: "user", parts: [{ text: "fix a.ts" }] },
        {
          role: "model",
          parts: [
            { text: "Plan.", thought: true },
            { text: "Looking." },
            { functionCall: { name: "read_file", args: { path: "a.ts" } }, thoughtSignature: fakeThoughtSignature(1) },
            { functionCall: { name: "ls", args: { path: "." } } }
          ]
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "read_file", response: { output: "const a = 1" } } },
            { functionResponse: { name: "ls", response: { output: "a.ts" } } }
          ]
        }
      ]
      expect(contentsOf(fake.requests[1]?.body)).toEqual(firstStep)
      expect(contentsOf(fake.requests[2]?.body)).toEqual([
        ...firstStep,
        {
          role: "model",
          parts: [
            { text: "Done thinking.", thought: true },
            { text: "All good.", thoughtSignature: fakeThoughtSignature(2) }
          ]
        },
        { role: "user", parts: [{ text: "thanks" }] }
      ])
    })
  )

  it.scopedLive("drops other protocols' reasoning and marks their tool calls with Google's placeholder signature", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ text: "ok" }])
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "look around" },
        {
          _tag: "assistant",
          id: "a1",
          text: "Sure.",
          model: "openai/gpt-5.1",
          reasoning: [{ text: "secret plan", opaque: { protocol: "openai-responses", data: { encrypted: "zzz" } } }, { text: "plain" }],
          toolCalls: [
            { id: "call_x", name: "ls", arguments: { path: "." } },
            { id: "call_y", name: "grep", arguments: '{"pattern": "TODO"}' },
            { id: "call_z", name: "edit", arguments: '{"path": "a.ts", "old' }
          ]
        },
        { _tag: "tool_result", id: "r1", callId: "call_x", name: "ls", text: "a.ts", isError: false },
        { _tag: "tool_result", id: "r2", callId: "call_y", name: "grep", text: "none", isError: false },
        { _tag: "tool_result", id: "r3", callId: "call_z", name: "edit", text: "invalid JSON arguments", isError: true }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { items })))
      expect(contentsOf(fake.requests[0]?.body)).toEqual([
        { role: "user", parts: [{ text: "look around" }] },
        {
          role: "model",
          parts: [
            { text: "Sure." },
            { functionCall: { name: "ls", args: { path: "." } }, thoughtSignature: "skip_thought_signature_validator" },
            { functionCall: { name: "grep", args: { pattern: "TODO" } } },
            { functionCall: { name: "edit", args: {} } }
          ]
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "ls", response: { output: "a.ts" } } },
            { functionResponse: { name: "grep", response: { output: "none" } } },
            { functionResponse: { name: "edit", response: { error: "invalid JSON arguments" } } }
          ]
        }
      ])
    })
  )

  it.scopedLive("ignores Gemini state it cannot read instead of sending it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ text: "ok" }])
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "hi" },
        {
          _tag: "assistant",
          id: "a1",
          text: "Hello.",
          model: "gem/gemini-test",
          reasoning: [
            { text: "hmm", opaque: { protocol: "gemini", data: "not an object" } },
            { text: "", opaque: { protocol: "gemini", data: { on: "text", thoughtSignature: 42 } } }
          ]
        },
        { _tag: "user", id: "u2", text: "bye" }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { items })))
      expect(contentsOf(fake.requests[0]?.body)).toEqual([
        { role: "user", parts: [{ text: "hi" }] },
        { role: "model", parts: [{ text: "Hello." }] },
        { role: "user", parts: [{ text: "bye" }] }
      ])
    })
  )
})
