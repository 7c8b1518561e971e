import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { fakeEncryptedReasoning } from "../../support/fake-llm/openai-responses.ts"
import { collect, requestFor } from "./fixtures.ts"
import { ofType, responsesFrame, responsesSetup, sseHeaders } from "./openai-responses-setup.ts"

const completed = (usage: object | null = null) =>
  responsesFrame({ type: "response.completed", sequence_number: 99, response: { id: "resp_raw", status: "completed", output: [], usage } })

describe("openai-responses adapter: events", () => {
  it.scopedLive("streams text deltas, then usage and finish", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ text: ["Hel", "lo", " there"], usage: { inputTokens: 12, outputTokens: 3 } }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "text_delta", text: "Hel" },
        { type: "text_delta", text: "lo" },
        { type: "text_delta", text: " there" },
        { type: "usage", usage: { inputTokens: 12, outputTokens: 3, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
        { type: "finish", reason: "stop" }
      ])
    })
  )

  it.scopedLive("maps cached, cache-write and reasoning token counts", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ text: "ok", usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64, cacheWriteTokens: 16, reasoningTokens: 7 } }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "usage")).toEqual([
        { type: "usage", usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64, cacheWriteTokens: 16, reasoningTokens: 7 } }
      ])
    })
  )

  it.scopedLive("streams the reasoning summary and ends the part with the item's final encrypted state", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ reasoning: ["Let me ", "think."], text: ["42"] }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.slice(0, 4)).toEqual([
        { type: "reasoning_delta", text: "Let me " },
        { type: "reasoning_delta", text: "think." },
        {
          type: "reasoning_end",
          opaque: {
            protocol: "openai-responses",
            data: {
              outputIndex: 0,
              item: {
                type: "reasoning",
                id: "rs_fake000001x0",
                summary: [{ type: "summary_text", text: "Let me think." }],
                encrypted_content: fakeEncryptedReasoning(1, 0)
              }
            }
          }
        },
        { type: "text_delta", text: "42" }
      ])
    })
  )

  it.scopedLive("ends a reasoning item that has no summary but encrypted state, so it can be replayed", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ reasoning: [], text: "done" }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "reasoning_delta")).toEqual([])
      expect(ofType(events, "reasoning_end")).toMatchObject([
        { opaque: { data: { item: { summary: [], encrypted_content: fakeEncryptedReasoning(1, 0) } } } }
      ])
    })
  )

  it.scopedLive("leaves out a reasoning item with neither summary nor encrypted state", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup({ capabilities: { reasoning: false } })
      fake.script([{ reasoning: [], text: ["done"] }])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events.map((event) => event.type)).toEqual(["text_delta", "usage", "finish"])
    })
  )

  it.scopedLive("joins summary parts as paragraphs of one reasoning text", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      const where = (summaryIndex: number) => ({ item_id: "rs_1", output_index: 0, summary_index: summaryIndex })
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            responsesFrame({ type: "response.output_item.added", output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [] } }),
            responsesFrame({ type: "response.reasoning_summary_part.added", ...where(0), part: { type: "summary_text", text: "" } }),
            responsesFrame({ type: "response.reasoning_summary_text.delta", ...where(0), delta: "**Plan**" }),
            responsesFrame({ type: "response.reasoning_summary_part.added", ...where(1), part: { type: "summary_text", text: "" } }),
            responsesFrame({ type: "response.reasoning_summary_text.delta", ...where(1), delta: "**Check**" }),
            responsesFrame({
              type: "response.output_item.done",
              output_index: 0,
              item: {
                id: "rs_1",
                type: "reasoning",
                encrypted_content: "enc",
                summary: [
                  { type: "summary_text", text: "**Plan**" },
                  { type: "summary_text", text: "**Check**" }
                ]
              }
            }),
            completed()
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "reasoning_delta").map((event) => event.text)).toEqual(["**Plan**", "\n\n", "**Check**"])
      expect(ofType(events, "reasoning_end")).toHaveLength(1)
    })
  )

  it.scopedLive("assembles one function call from its argument deltas", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([
        { toolCalls: [{ id: "call_1", name: "read_file", arguments: { path: "src/main.ts", limit: 40 }, argumentChunks: 5 }] }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(ofType(events, "tool_call")).toEqual([
        {
          type: "tool_call",
          id: "call_1",
          name: "read_file",
          arguments: { path: "src/main.ts", limit: 40 },
          opaque: { protocol: "openai-responses", data: { outputIndex: 0, itemId: "fc_fake000001x0" } }
        }
      ])
      expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" })
    })
  )

  it.scopedLive("keeps several interleaved function calls apart, in output order", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([
        {
          reasoning: "Look around.",
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
      expect(ofType(events, "tool_call").map(({ id, name, arguments: args, opaque }) => ({ id, name, args, opaque }))).toEqual([
        { id: "call_a", name: "grep", args: { pattern: "TODO" }, opaque: { protocol: "openai-responses", data: { outputIndex: 2, itemId: "fc_fake000001x2" } } },
        { id: "call_b", name: "ls", args: { path: "." }, opaque: { protocol: "openai-responses", data: { outputIndex: 3, itemId: "fc_fake000001x3" } } },
        { id: "call_c", name: "noop", args: {}, opaque: { protocol: "openai-responses", data: { outputIndex: 4, itemId: "fc_fake000001x4" } } }
      ])
      expect(ofType(events, "text_delta").map((event) => event.text).join("")).toBe("Looking.")
    })
  )

  it.scopedLive("keeps arguments that are not valid JSON as the raw string", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ toolCalls: [{ id: "call_x", name: "edit", arguments: '{"path": "a.ts", "text": ' }] }])
      const [call] = ofType(yield* collect(client.stream(requestFor(model))), "tool_call")
      expect(call?.arguments).toBe('{"path": "a.ts", "text": ')
    })
  )

  it.scopedLive("uses the streamed arguments when the finished item leaves them out", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      const item = { id: "fc_1", type: "function_call", call_id: "call_1", name: "ls" }
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            responsesFrame({ type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "" } }),
            responsesFrame({ type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta: '{"path":' }),
            responsesFrame({ type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta: '"."}' }),
            responsesFrame({ type: "response.output_item.done", output_index: 0, item: { ...item, arguments: "" } }),
            completed()
          ]
        }
      ])
      const [call] = ofType(yield* collect(client.stream(requestFor(model))), "tool_call")
      expect(call?.arguments).toEqual({ path: "." })
    })
  )

  it.scopedLive("streams a refusal as text", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            responsesFrame({ type: "response.refusal.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: "I can't help with that." }),
            completed()
          ]
        }
      ])
      const events = yield* collect(client.stream(requestFor(model)))
      expect(events).toEqual([
        { type: "text_delta", text: "I can't help with that." },
        { type: "finish", reason: "stop" }
      ])
    })
  )

  const finishCases: ReadonlyArray<readonly [string, string, string]> = [
    ["stop", "response.completed", "stop"],
    ["length", "response.incomplete (max_output_tokens)", "length"],
    ["content_filter", "response.incomplete (content_filter)", "content_filter"],
    ["some_new_reason", "response.incomplete (some_new_reason)", "other"]
  ]
  for (const [scripted, wire, reason] of finishCases) {
    it.scopedLive(`maps ${wire} to ${reason}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* responsesSetup()
        fake.script([{ text: "x", finishReason: scripted, usage: { inputTokens: 5, outputTokens: 1 } }])
        const events = yield* collect(client.stream(requestFor(model)))
        expect(events.slice(-2)).toEqual([
          { type: "usage", usage: { inputTokens: 5, outputTokens: 1, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
          { type: "finish", reason }
        ])
      })
    )
  }
})
