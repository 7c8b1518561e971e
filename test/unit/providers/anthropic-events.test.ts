import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { anthropicEvent } from "../../support/fake-llm/anthropic.ts"
import { anthropicSetup, messageEnd, messageStart, ofType, sseHeaders } from "./anthropic-fixtures.ts"
import { collect, requestFor } from "./fixtures.ts"


describe("anthropic adapter: events", () => {
  it.scopedLive("streams text deltas, then usage and finish", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ text: ["Hel", "lo", " there"], usage: { inputTokens: 12, outputTokens: 3 } }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "text_delta", text: "Hel" },
        { type: "text_delta", text: "lo" },
        { type: "text_delta", text: " there" },
        { type: "usage", usage: { inputTokens: 12, outputTokens: 3, cachedInputTokens: 0, cacheWriteTokens: 0 } },
        { type: "finish", reason: "stop" }
      ])
    })
  )

  it.scopedLive("counts cache reads and writes as input, cache reads as cached, thinking tokens as reasoning", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            messageStart({ input_tokens: 10, cache_creation_input_tokens: 200, cache_read_input_tokens: 0, output_tokens: 1 }),
            anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
            anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: "ok" } }),
            anthropicEvent("content_block_stop", { index: 0 }),
            // message_delta counts are cumulative and may restate the input counts.
            ...messageEnd("end_turn", {
              input_tokens: 10,
              cache_creation_input_tokens: 200,
              cache_read_input_tokens: 3000,
              output_tokens: 42,
              output_tokens_details: { thinking_tokens: 30 }
            })
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "usage")).toEqual([
        { type: "usage", usage: { inputTokens: 3210, outputTokens: 42, cachedInputTokens: 3000, cacheWriteTokens: 200, reasoningTokens: 30 } }
      ])
    })
  )

  it.scopedLive("maps scripted cached input back to the same totals", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ text: "ok", usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64, cacheWriteTokens: 16, reasoningTokens: 7 } }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "usage")).toEqual([
        { type: "usage", usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64, cacheWriteTokens: 16, reasoningTokens: 7 } }
      ])
    })
  )

  it.scopedLive("streams thinking as reasoning deltas and ends the part with its signature", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ reasoning: ["Let me ", "think."], text: ["42"] }])
      const events = yield* collect(client.stream(requestFor(model)))
      const [reasoningEnd] = ofType(events, "reasoning_end")
      const signature = (reasoningEnd?.opaque?.data as { signature?: unknown } | undefined)?.signature // opaque data is unknown by design
      expect(typeof signature).toBe("string")
      expect(events.slice(0, 4)).toEqual([
        { type: "reasoning_delta", text: "Let me " },
        { type: "reasoning_delta", text: "think." },
        { type: "reasoning_end", opaque: { protocol: "anthropic", data: { type: "thinking", signature } } },
        { type: "text_delta", text: "42" }
      ])
    })
  )

  it.scopedLive("keeps redacted thinking as opaque state with no text, and several thinking blocks apart", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      const redacted = "EmwKAhgBEgy3va3pzix/LafPsn4a"
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            messageStart({ input_tokens: 5, output_tokens: 1 }),
            anthropicEvent("content_block_start", { index: 0, content_block: { type: "redacted_thinking", data: redacted } }),
            anthropicEvent("content_block_stop", { index: 0 }),
            anthropicEvent("content_block_start", { index: 1, content_block: { type: "thinking", thinking: "", signature: "" } }),
            anthropicEvent("content_block_delta", { index: 1, delta: { type: "thinking_delta", thinking: "visible" } }),
            anthropicEvent("content_block_delta", { index: 1, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM" } }),
            anthropicEvent("content_block_stop", { index: 1 }),
            `event: ping\ndata: {"type": "ping"}\n\n`,
            anthropicEvent("content_block_start", { index: 2, content_block: { type: "text", text: "" } }),
            anthropicEvent("content_block_delta", { index: 2, delta: { type: "text_delta", text: "Done." } }),
            anthropicEvent("content_block_stop", { index: 2 }),
            ...messageEnd("end_turn", { output_tokens: 9 })
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "reasoning_end", opaque: { protocol: "anthropic", data: { type: "redacted_thinking", data: redacted } } },
        { type: "reasoning_delta", text: "visible" },
        { type: "reasoning_end", opaque: { protocol: "anthropic", data: { type: "thinking", signature: "EqQBCgIYAhIM" } } },
        { type: "text_delta", text: "Done." },
        { type: "usage", usage: { inputTokens: 5, outputTokens: 9 } },
        { type: "finish", reason: "stop" }
      ])
    })
  )

  it.scopedLive("assembles one tool call from its input_json_delta fragments", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([
        { toolCalls: [{ id: "toolu_01", name: "read_file", arguments: { path: "src/main.ts", limit: 40 }, argumentChunks: 5 }] }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "tool_call")).toEqual([
        { type: "tool_call", id: "toolu_01", name: "read_file", arguments: { path: "src/main.ts", limit: 40 } }
      ])
      expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" })
    })
  )

  it.scopedLive("keeps several tool calls apart, in block order, after the text", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([
        {
          text: "Looking.",
          toolCalls: [
            { id: "toolu_a", name: "grep", arguments: { pattern: "TODO" } },
            { id: "toolu_b", name: "ls", arguments: { path: "." } },
            { id: "toolu_c", name: "noop", arguments: "" }
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.map((event) => event.type)).toEqual([
        "text_delta",
        "text_delta",
        "text_delta",
        "tool_call",
        "tool_call",
        "tool_call",
        "usage",
        "finish"
      ])
      expect(ofType(events, "tool_call")).toEqual([
        { type: "tool_call", id: "toolu_a", name: "grep", arguments: { pattern: "TODO" } },
        { type: "tool_call", id: "toolu_b", name: "ls", arguments: { path: "." } },
        { type: "tool_call", id: "toolu_c", name: "noop", arguments: {} }
      ])
    })
  )

  it.scopedLive("keeps input that is not valid JSON as the raw string", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ toolCalls: [{ id: "toolu_x", name: "edit", arguments: '{"path": "a.ts", "text": ' }] }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "tool_call")).toEqual([
        { type: "tool_call", id: "toolu_x", name: "edit", arguments: '{"path": "a.ts", "text": ' }
      ])
    })
  )

  it.scopedLive("ignores server tool blocks and event types it does not know", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            messageStart({ input_tokens: 5, output_tokens: 1 }),
            anthropicEvent("content_block_start", {
              index: 0,
              content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }
            }),
            anthropicEvent("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '{"query":"x"}' } }),
            anthropicEvent("content_block_stop", { index: 0 }),
            anthropicEvent("brand_new_event", { detail: 1 }),
            anthropicEvent("content_block_start", { index: 1, content_block: { type: "text", text: "" } }),
            anthropicEvent("content_block_delta", { index: 1, delta: { type: "citations_delta", citation: {} } }),
            anthropicEvent("content_block_delta", { index: 1, delta: { type: "text_delta", text: "found" } }),
            anthropicEvent("content_block_stop", { index: 1 }),
            ...messageEnd("end_turn", { output_tokens: 3 })
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.map((event) => event.type)).toEqual(["text_delta", "usage", "finish"])
    })
  )

  const stopCases: ReadonlyArray<readonly [string, string]> = [
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["tool_use", "tool_calls"],
    ["max_tokens", "length"],
    ["model_context_window_exceeded", "length"],
    ["refusal", "content_filter"],
    ["pause_turn", "other"],
    ["something_new", "other"]
  ]
  for (const [wire, reason] of stopCases) {
    it.scopedLive(`maps stop_reason ${wire} to ${reason}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* anthropicSetup()
        fake.script([{ text: "x", finishReason: wire }])
        const events = yield* collect(client.stream(requestFor(model)))
        expect(events.at(-1)).toEqual({ type: "finish", reason })
      })
    )
  }
})
