import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { fakeThoughtSignature } from "../../support/fake-llm/gemini.ts"
import { collect, requestFor } from "./fixtures.ts"
import { geminiFrame, geminiSetup, ofType, sseHeaders } from "./gemini-fixtures.ts"

const gemini = { protocol: "gemini" } as const

describe("gemini adapter: events", () => {
  it.scopedLive("streams text deltas, then usage and finish", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ text: ["Hel", "lo", " there"], usage: { inputTokens: 12, outputTokens: 3 } }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "text_delta", text: "Hel" },
        { type: "text_delta", text: "lo" },
        { type: "text_delta", text: " there" },
        { type: "usage", usage: { inputTokens: 12, outputTokens: 3 } },
        { type: "finish", reason: "stop" }
      ])
    })
  )

  it.scopedLive("maps cached and thought token counts; output counts the thoughts", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ text: "ok", usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 7 } }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "usage")).toEqual([
        { type: "usage", usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 7 } }
      ])
    })
  )

  it.scopedLive("streams thought parts as reasoning and keeps the closing signature of the answer", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup({ capabilities: { reasoning: true } })
      fake.script([{ reasoning: ["Let me ", "think."], text: ["42"] }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.slice(0, 5)).toEqual([
        { type: "reasoning_delta", text: "Let me " },
        { type: "reasoning_delta", text: "think." },
        { type: "reasoning_end", opaque: { ...gemini, data: { on: "thought" } } },
        { type: "text_delta", text: "42" },
        { type: "reasoning_end", opaque: { ...gemini, data: { on: "text", thoughtSignature: fakeThoughtSignature(1) } } }
      ])
      expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" })
    })
  )

  it.scopedLive("a signed thought part closes its reasoning part with the signature", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            geminiFrame([{ text: "Plan.", thought: true }]),
            geminiFrame([{ text: " Check.", thought: true, thoughtSignature: "c2lnLWE=" }]),
            geminiFrame([{ text: "More.", thought: true }]),
            geminiFrame([{ text: "Done" }], { finishReason: "STOP" })
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "reasoning_delta", text: "Plan." },
        { type: "reasoning_delta", text: " Check." },
        { type: "reasoning_end", opaque: { ...gemini, data: { on: "thought", thoughtSignature: "c2lnLWE=" } } },
        { type: "reasoning_delta", text: "More." },
        { type: "reasoning_end", opaque: { ...gemini, data: { on: "thought" } } },
        { type: "text_delta", text: "Done" },
        { type: "finish", reason: "stop" }
      ])
    })
  )

  it.scopedLive("emits a whole function call with its signature and an id of its own when Gemini sends none", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ toolCalls: [{ name: "read_file", arguments: { path: "src/main.ts", limit: 40 } }] }])
      const events = yield* collect(client.stream(requestFor(model)))
      const [call, ...others] = ofType(events, "tool_call")
      expect(others).toEqual([])
      expect(call).toMatchObject({
        name: "read_file",
        arguments: { path: "src/main.ts", limit: 40 },
        opaque: { ...gemini, data: { idFromModel: false, thoughtSignature: fakeThoughtSignature(1) } }
      })
      expect(call?.id).toMatch(/^call_[0-9a-f]{32}$/)
      expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" })
    })
  )

  it.scopedLive("keeps several calls in order, with Gemini's ids; only the first is signed", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([
        {
          text: "Looking.",
          toolCalls: [
            { id: "fc_a", name: "grep", arguments: { pattern: "TODO" } },
            { id: "fc_b", name: "ls", arguments: { path: "." } },
            { id: "fc_c", name: "noop", arguments: "" }
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "tool_call")).toEqual([
        {
          type: "tool_call",
          id: "fc_a",
          name: "grep",
          arguments: { pattern: "TODO" },
          opaque: { ...gemini, data: { idFromModel: true, thoughtSignature: fakeThoughtSignature(1) } }
        },
        { type: "tool_call", id: "fc_b", name: "ls", arguments: { path: "." }, opaque: { ...gemini, data: { idFromModel: true } } },
        { type: "tool_call", id: "fc_c", name: "noop", arguments: {}, opaque: { ...gemini, data: { idFromModel: true } } }
      ])
      expect(ofType(events, "text_delta").map((event) => event.text).join("")).toBe("Looking.")
    })
  )

  it.scopedLive("a malformed function call ends the response with no call and reason other", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ toolCalls: [{ name: "edit", arguments: '{"path": "a.ts", "text": ' }] }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "tool_call")).toEqual([])
      expect(events.at(-1)).toEqual({ type: "finish", reason: "other" })
    })
  )

  it.scopedLive("a prompt Gemini blocks finishes as content_filter", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            `data: ${JSON.stringify({
              promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
              usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 }
            })}\r\n\r\n`
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "usage", usage: { inputTokens: 9, outputTokens: 0 } },
        { type: "finish", reason: "content_filter" }
      ])
    })
  )

  const finishCases: ReadonlyArray<readonly [string, string]> = [
    ["stop", "stop"],
    ["length", "length"],
    ["content_filter", "content_filter"],
    ["RECITATION", "content_filter"],
    ["PROHIBITED_CONTENT", "content_filter"],
    ["MALFORMED_FUNCTION_CALL", "other"],
    ["OTHER", "other"]
  ]
  for (const [scripted, reason] of finishCases) {
    it.scopedLive(`maps finish reason ${scripted} to ${reason}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* geminiSetup()
        fake.script([{ text: "x", finishReason: scripted }])
        const events = yield* collect(client.stream(requestFor(model)))
        expect(events.at(-1)).toEqual({ type: "finish", reason })
      })
    )
  }
})
