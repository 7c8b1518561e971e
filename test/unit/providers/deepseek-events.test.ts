import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import { makeDeepSeekClient } from "../../../src/providers/deepseek.ts"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import { collect, fakeLlm, keyEnv, requestFor } from "./fixtures.ts"

const deepseekModel = (baseURL: string): ModelEntry => ({
  ref: "deepseek/deepseek-v4-flash",
  id: "deepseek-v4-flash",
  provider: { name: "deepseek", protocol: "deepseek", baseURL, apiKeyEnv: [keyEnv], headers: {} },
  capabilities: { contextWindow: 1_000_000, maxOutputTokens: 8_192, imageInput: false, reasoning: true },
  listed: true
})

const setup = Effect.map(fakeLlm, (fake) => {
  const model = deepseekModel(`${fake.url}/deepseek`)
  return { fake, model, client: makeDeepSeekClient(model, { [keyEnv]: "sk-deepseek" }) }
})

const ofType = <T extends ModelEvent["type"]>(events: ReadonlyArray<ModelEvent>, type: T) =>
  events.filter((event): event is Extract<ModelEvent, { type: T }> => event.type === type)

const sse = (json: object): string => `data: ${JSON.stringify(json)}\n\n`

describe("deepseek adapter: events", () => {
  it.scopedLive("streams text, then usage with DeepSeek's cache hits and reasoning tokens, then finish", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([{ text: ["Hel", "lo"], usage: { inputTokens: 1200, outputTokens: 30, cachedInputTokens: 1024, reasoningTokens: 12 } }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "text_delta", text: "Hel" },
        { type: "text_delta", text: "lo" },
        { type: "usage", usage: { inputTokens: 1200, outputTokens: 30, cachedInputTokens: 1024, reasoningTokens: 12 } },
        { type: "finish", reason: "stop" }
      ])
    })
  )

  it.scopedLive("takes cached input from prompt_cache_hit_tokens when cached_tokens is absent", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      const chunk = (delta: object, finishReason: string | null, usage?: object) =>
        sse({
          id: "x",
          object: "chat.completion.chunk",
          created: 1,
          model: "deepseek-v4-flash",
          choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
          ...(usage === undefined ? {} : { usage })
        })
      fake.script([
        {
          kind: "raw",
          headers: { "content-type": "text/event-stream" },
          chunks: [
            chunk({ role: "assistant", content: "ok" }, null),
            chunk({ content: "" }, "stop", {
              prompt_tokens: 900,
              completion_tokens: 2,
              total_tokens: 902,
              prompt_cache_hit_tokens: 640,
              prompt_cache_miss_tokens: 260
            }),
            "data: [DONE]\n\n"
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "usage")).toEqual([{ type: "usage", usage: { inputTokens: 900, outputTokens: 2, cachedInputTokens: 640 } }])
    })
  )

  it.scopedLive("streams reasoning_content as reasoning and closes it with DeepSeek's state", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([{ reasoning: ["9.11 vs ", "9.8: compare tenths."], text: ["9.8"] }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.slice(0, 4)).toEqual([
        { type: "reasoning_delta", text: "9.11 vs " },
        { type: "reasoning_delta", text: "9.8: compare tenths." },
        { type: "reasoning_end", opaque: { protocol: "deepseek", data: null } },
        { type: "text_delta", text: "9.8" }
      ])
    })
  )

  it.scopedLive("assembles several tool calls from their fragments, after the reasoning", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([
        {
          reasoning: ["Need both files."],
          toolCalls: [
            { id: "call_00_a", name: "read_file", arguments: { path: "a.ts" }, argumentChunks: 4 },
            { id: "call_01_b", name: "read_file", arguments: { path: "b.ts" }, argumentChunks: 2 },
            { id: "call_02_c", name: "edit", arguments: '{"path": "c.ts", ' }
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.map((event) => event.type)).toEqual([
        "reasoning_delta",
        "reasoning_end",
        "tool_call",
        "tool_call",
        "tool_call",
        "usage",
        "finish"
      ])
      expect(ofType(events, "tool_call")).toEqual([
        { type: "tool_call", id: "call_00_a", name: "read_file", arguments: { path: "a.ts" } },
        { type: "tool_call", id: "call_01_b", name: "read_file", arguments: { path: "b.ts" } },
        { type: "tool_call", id: "call_02_c", name: "edit", arguments: '{"path": "c.ts", ' }
      ])
      expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" })
    })
  )

  it.scopedLive("maps the length finish reason", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([{ text: "trunc", finishReason: "length" }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.at(-1)).toEqual({ type: "finish", reason: "length" })
    })
  )
})
