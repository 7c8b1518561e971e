import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import { chatSetup, collect, requestFor } from "./fixtures.ts"

const sse = (json: object): string => `data: ${JSON.stringify(json)}\n\n`
const chunk = (delta: object, finishReason: string | null = null) =>
  sse({
    id: "chatcmpl-raw",
    object: "chat.completion.chunk",
    created: 1,
    model: "test-model",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }]
  })
const sseHeaders = { "content-type": "text/event-stream" }

const ofType = <T extends ModelEvent["type"]>(events: ReadonlyArray<ModelEvent>, type: T) =>
  events.filter((event): event is Extract<ModelEvent, { type: T }> => event.type === type)

describe("openai-chat adapter: events", () => {
  it.scopedLive("streams text deltas, then usage and finish", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ text: ["Hel", "lo", " there"], usage: { inputTokens: 12, outputTokens: 3 } }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "text_delta", text: "Hel" },
        { type: "text_delta", text: "lo" },
        { type: "text_delta", text: " there" },
        { type: "usage", usage: { inputTokens: 12, outputTokens: 3, cachedInputTokens: 0, reasoningTokens: 0 } },
        { type: "finish", reason: "stop" }
      ])
    })
  )

  it.scopedLive("maps cached and reasoning token counts", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ text: "ok", usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 7 } }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "usage")).toEqual([
        { type: "usage", usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 7 } }
      ])
    })
  )

  it.scopedLive("streams reasoning_content as reasoning deltas and closes the part before the text", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ reasoning: ["Let me ", "think."], text: ["42"] }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.slice(0, 4)).toEqual([
        { type: "reasoning_delta", text: "Let me " },
        { type: "reasoning_delta", text: "think." },
        { type: "reasoning_end" },
        { type: "text_delta", text: "42" }
      ])
    })
  )

  it.scopedLive("accepts delta.reasoning as vLLM sends it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            chunk({ role: "assistant", content: null, reasoning: "hmm" }),
            chunk({ content: "done" }),
            chunk({}, "stop"),
            "data: [DONE]\n\n"
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "reasoning_delta", text: "hmm" },
        { type: "reasoning_end" },
        { type: "text_delta", text: "done" },
        { type: "finish", reason: "stop" }
      ])
    })
  )

  it.scopedLive("assembles one tool call from its fragments", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([
        { toolCalls: [{ id: "call_1", name: "read_file", arguments: { path: "src/main.ts", limit: 40 }, argumentChunks: 5 }] }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "tool_call")).toEqual([
        { type: "tool_call", id: "call_1", name: "read_file", arguments: { path: "src/main.ts", limit: 40 } }
      ])
      expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" })
    })
  )

  it.scopedLive("keeps several interleaved tool calls apart, in index order", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([
        {
          text: "Looking.",
          toolCalls: [
            { id: "call_a", name: "grep", arguments: { pattern: "TODO" } },
            { id: "call_b", name: "ls", arguments: { path: "." } },
            { id: "call_c", name: "noop", arguments: "" }
          ],
          interleaveToolCalls: true
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "tool_call")).toEqual([
        { type: "tool_call", id: "call_a", name: "grep", arguments: { pattern: "TODO" } },
        { type: "tool_call", id: "call_b", name: "ls", arguments: { path: "." } },
        { type: "tool_call", id: "call_c", name: "noop", arguments: {} }
      ])
      expect(ofType(events, "text_delta").map((event) => event.text).join("")).toBe("Looking.")
    })
  )

  it.scopedLive("keeps arguments that are not valid JSON as the raw string", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ toolCalls: [{ id: "call_x", name: "edit", arguments: '{"path": "a.ts", "text": ' }] }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "tool_call")).toEqual([
        { type: "tool_call", id: "call_x", name: "edit", arguments: '{"path": "a.ts", "text": ' }
      ])
    })
  )

  it.scopedLive("gives a tool call without an id one of its own", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            chunk({ role: "assistant", tool_calls: [{ index: 0, function: { name: "ls", arguments: "{}" } }] }),
            chunk({}, "tool_calls"),
            "data: [DONE]\n\n"
          ]
        }
      ])
      const [call] = ofType(yield* collect(client.stream(requestFor(model))), "tool_call")
      expect(call?.name).toBe("ls")
      expect(call?.id).toMatch(/^call_[0-9a-f]{32}$/)
    })
  )

  const finishCases: ReadonlyArray<readonly [string, string]> = [
    ["stop", "stop"],
    ["tool_calls", "tool_calls"],
    ["function_call", "tool_calls"],
    ["length", "length"],
    ["content_filter", "content_filter"],
    ["end_of_turn_by_some_server", "other"]
  ]
  for (const [wire, reason] of finishCases) {
    it.scopedLive(`maps finish_reason ${wire} to ${reason}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* chatSetup()
        fake.script([{ text: "x", finishReason: wire }])
        const events = yield* collect(client.stream(requestFor(model)))
        expect(events.at(-1)).toEqual({ type: "finish", reason })
      })
    )
  }
})
