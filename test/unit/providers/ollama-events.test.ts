import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import { makeOllamaClient } from "../../../src/providers/ollama.ts"
import { collect, fakeLlm, requestFor } from "./fixtures.ts"

const ollamaModel = (baseURL: string): ModelEntry => ({
  ref: "ollama/qwen3:8b",
  id: "qwen3:8b",
  provider: { name: "ollama", protocol: "ollama", baseURL, apiKeyEnv: [], headers: {} },
  capabilities: { contextWindow: 40_960, maxOutputTokens: 4_096, imageInput: true, reasoning: true },
  listed: true
})

const setup = Effect.map(fakeLlm, (fake) => {
  const model = ollamaModel(fake.url)
  return { fake, model, client: makeOllamaClient(model, {}) }
})

const line = (json: object): string => `${JSON.stringify(json)}\n`
const ndjson = { "content-type": "application/x-ndjson" }

const ofType = <T extends ModelEvent["type"]>(events: ReadonlyArray<ModelEvent>, type: T) =>
  events.filter((event): event is Extract<ModelEvent, { type: T }> => event.type === type)

describe("ollama adapter: events", () => {
  it.scopedLive("streams text deltas, then usage and finish", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([{ text: ["Hel", "lo", " there"], usage: { inputTokens: 26, outputTokens: 3 } }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "text_delta", text: "Hel" },
        { type: "text_delta", text: "lo" },
        { type: "text_delta", text: " there" },
        { type: "usage", usage: { inputTokens: 26, outputTokens: 3 } },
        { type: "finish", reason: "stop" }
      ])
    })
  )

  it.scopedLive("streams thinking as reasoning and closes it with Ollama's state before the text", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([{ reasoning: ["Let me ", "think."], text: ["42"] }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.slice(0, 4)).toEqual([
        { type: "reasoning_delta", text: "Let me " },
        { type: "reasoning_delta", text: "think." },
        { type: "reasoning_end", opaque: { protocol: "ollama", data: null } },
        { type: "text_delta", text: "42" }
      ])
    })
  )

  it.scopedLive("emits a whole tool call with its object arguments and the server's id", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([{ toolCalls: [{ id: "call_k3c9x2", name: "read_file", arguments: { path: "src/main.ts", limit: 40 } }] }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "tool_call")).toEqual([
        { type: "tool_call", id: "call_k3c9x2", name: "read_file", arguments: { path: "src/main.ts", limit: 40 } }
      ])
      expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" })
    })
  )

  it.scopedLive("gives calls without ids ids of their own and keeps several calls in order", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([
        {
          reasoning: ["Two lookups."],
          toolCalls: [
            { name: "grep", arguments: { pattern: "TODO" } },
            { name: "ls", arguments: { path: "." } }
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      const calls = ofType(events, "tool_call")
      expect(calls.map(({ name, arguments: args }) => ({ name, args }))).toEqual([
        { name: "grep", args: { pattern: "TODO" } },
        { name: "ls", args: { path: "." } }
      ])
      expect(calls[0]?.id).toMatch(/^call_[0-9a-f]{32}$/)
      expect(new Set(calls.map((call) => call.id)).size).toBe(2)
      expect(events.map((event) => event.type)).toEqual([
        "reasoning_delta",
        "reasoning_end",
        "tool_call",
        "tool_call",
        "usage",
        "finish"
      ])
    })
  )

  it.scopedLive("keeps string arguments from a bent server: parsed when JSON, raw otherwise", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([
        {
          toolCalls: [
            { id: "call_a", name: "edit", arguments: '{"path": "a.ts", "text": ' },
            { id: "call_b", name: "noop", arguments: "[1]" }
          ]
        }
      ])
      const calls = ofType(yield* collect(client.stream(requestFor(model))), "tool_call")
      expect(calls.map((call) => call.arguments)).toEqual(['{"path": "a.ts", "text": ', [1]])
    })
  )

  it.scopedLive("maps done_reason length, and counts that Ollama leaves out as zero", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([
        {
          kind: "raw",
          headers: ndjson,
          chunks: [
            line({ model: "qwen3:8b", created_at: "2025-01-01T00:00:00Z", message: { role: "assistant", content: "abc" }, done: false }),
            line({
              model: "qwen3:8b",
              created_at: "2025-01-01T00:00:01Z",
              message: { role: "assistant", content: "" },
              done: true,
              done_reason: "length",
              eval_count: 4096
            })
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.slice(1)).toEqual([
        { type: "usage", usage: { inputTokens: 0, outputTokens: 4096 } },
        { type: "finish", reason: "length" }
      ])
    })
  )

  it.scopedLive("reads a done object that arrives with the last text in the same read", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([
        {
          kind: "raw",
          headers: ndjson,
          chunks: [
            line({ model: "m", created_at: "t", message: { role: "assistant", content: "one" }, done: false }) +
              line({ model: "m", created_at: "t", message: { role: "assistant", content: "" }, done: true, done_reason: "load" })
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "text_delta", text: "one" },
        { type: "usage", usage: { inputTokens: 0, outputTokens: 0 } },
        { type: "finish", reason: "other" }
      ])
    })
  )
})
