import { afterEach, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import { makeDeepSeekClient } from "../../../src/providers/deepseek.ts"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import type { AssistantMessage, ReasoningPart, TranscriptItem } from "../../../src/session/items.ts"
import { collect, collectFailure, fakeLlm, keyEnv, requestFor } from "./fixtures.ts"

const deepseekModel = (baseURL: string, reasoning: boolean): ModelEntry => ({
  ref: "deepseek/deepseek-v4-flash",
  id: "deepseek-v4-flash",
  provider: { name: "deepseek", protocol: "deepseek", baseURL, apiKeyEnv: [keyEnv], headers: { "X-Trace": "t1" } },
  capabilities: { contextWindow: 1_000_000, maxOutputTokens: 8_192, imageInput: false, reasoning },
  listed: true
})

const setup = (reasoning = true) =>
  Effect.map(fakeLlm, (fake) => {
    const model = deepseekModel(`${fake.url}/deepseek`, reasoning)
    return { fake, model, client: makeDeepSeekClient(model, { [keyEnv]: "sk-deepseek" }) }
  })

const deepseekState = { protocol: "deepseek", data: null }

const messagesOf = (body: unknown): ReadonlyArray<Record<string, unknown>> =>
  (body as { messages: ReadonlyArray<Record<string, unknown>> }).messages

/** What the engine would store from a streamed answer. */
const assistantFrom = (events: ReadonlyArray<ModelEvent>, id: string, model: string): AssistantMessage => {
  const reasoning: Array<ReasoningPart> = []
  let thinking = ""
  let text = ""
  const toolCalls: Array<{ id: string; name: string; arguments: unknown }> = []
  for (const event of events) {
    if (event.type === "reasoning_delta") thinking += event.text
    if (event.type === "reasoning_end") {
      reasoning.push({ text: thinking, ...(event.opaque === undefined ? {} : { opaque: event.opaque }) })
      thinking = ""
    }
    if (event.type === "text_delta") text += event.text
    if (event.type === "tool_call") toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments })
  }
  return { _tag: "assistant", id, text, model, reasoning, ...(toolCalls.length === 0 ? {} : { toolCalls }) }
}

describe("deepseek adapter: the request as the server sees it", () => {
  const sdkVariables = ["OPENAI_CUSTOM_HEADERS", "OPENAI_ORG_ID"] as const
  const saved = sdkVariables.map((name) => [name, process.env[name]] as const)
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  it.scopedLive("is the Chat Completions body at DeepSeek's path, with the key and the provider's headers", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup(false)
      fake.script([{ text: "ok" }])
      const tools = [{ name: "ls", description: "List a directory", inputSchema: { type: "object", properties: {} } }]
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "Be brief.", tools })))
      const [request] = fake.requests
      expect(request?.path).toBe("/deepseek/chat/completions")
      expect(request?.headers["authorization"]).toBe("Bearer sk-deepseek")
      expect(request?.headers["x-trace"]).toBe("t1")
      expect(request?.body).toEqual({
        model: "deepseek-v4-flash",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hello" }
        ],
        tools: [{ type: "function", function: { name: "ls", description: "List a directory", parameters: { type: "object", properties: {} } } }],
        max_tokens: 8192,
        stream: true,
        stream_options: { include_usage: true }
      })
    })
  )

  it.scopedLive("keeps the OpenAI SDK's environment out of the request", () =>
    Effect.gen(function* () {
      process.env["OPENAI_CUSTOM_HEADERS"] = "X-Leaked: from-env\nX-Trace: from-env"
      process.env["OPENAI_ORG_ID"] = "org-from-env"
      const { fake, model, client } = yield* setup(false)
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      const headers = fake.requests[0]?.headers
      expect(headers).not.toHaveProperty("x-leaked")
      expect(headers?.["x-trace"]).toBe("t1")
      expect(headers).not.toHaveProperty("openai-organization")
    })
  )

  it.scopedLive("reports an OPENAI_CUSTOM_HEADERS the SDK refuses as a ProviderError, sending nothing", () =>
    Effect.gen(function* () {
      process.env["OPENAI_CUSTOM_HEADERS"] = "Not A Token: x"
      const { fake, model, client } = yield* setup(false)
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "bad_request", provider: "deepseek" })
      expect(error.message).toContain("could not set up the OpenAI SDK for deepseek")
      expect(fake.requests).toHaveLength(0)
    })
  )

  it.scopedLive("turns thinking mode on for a model declared to reason", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup(true)
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests[0]?.body).toMatchObject({ thinking: { type: "enabled" } })
    })
  )

  it.scopedLive("does not send back reasoning of turns without tool calls", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup(true)
      fake.script([{ text: "ok" }])
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "9.11 or 9.8?" },
        {
          _tag: "assistant",
          id: "a1",
          text: "9.8",
          model: "deepseek/deepseek-v4-flash",
          reasoning: [{ text: "compare tenths", opaque: deepseekState }]
        },
        { _tag: "user", id: "u2", text: "And 9.10?" }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "", items })))
      expect(messagesOf(fake.requests[0]?.body)).toEqual([
        { role: "user", content: "9.11 or 9.8?" },
        { role: "assistant", content: "9.8" },
        { role: "user", content: "And 9.10?" }
      ])
    })
  )

  it.scopedLive("sends back the reasoning of every assistant message in turns with tool calls, in all later requests", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup(true)
      fake.script([{ text: "ok" }])
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "hi" },
        { _tag: "assistant", id: "a0", text: "Hello.", model: "deepseek/deepseek-v4-flash", reasoning: [{ text: "greet", opaque: deepseekState }] },
        { _tag: "user", id: "u2", text: "Weather in Hangzhou tomorrow?" },
        {
          _tag: "assistant",
          id: "a1",
          text: "",
          model: "deepseek/deepseek-v4-flash",
          reasoning: [{ text: "Need the date first.", opaque: deepseekState }],
          toolCalls: [{ id: "call_date", name: "get_date", arguments: {} }]
        },
        { _tag: "tool_result", id: "r1", callId: "call_date", name: "get_date", text: "2025-12-01", isError: false },
        {
          _tag: "assistant",
          id: "a2",
          text: "",
          model: "deepseek/deepseek-v4-pro",
          reasoning: [
            { text: "Tomorrow is 12-02. ", opaque: deepseekState },
            { text: "Now the weather.", opaque: deepseekState }
          ],
          toolCalls: [{ id: "call_weather", name: "get_weather", arguments: { location: "Hangzhou", date: "2025-12-02" } }]
        },
        { _tag: "tool_result", id: "r2", callId: "call_weather", name: "get_weather", text: "Cloudy 7~13°C", isError: false },
        {
          _tag: "assistant",
          id: "a3",
          text: "Cloudy, 7–13 °C.",
          model: "anthropic/claude-sonnet-4-5",
          reasoning: [{ text: "signed", opaque: { protocol: "anthropic", data: { signature: "sig" } } }]
        },
        { _tag: "user", id: "u3", text: "And the day after?" }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "", items })))
      expect(messagesOf(fake.requests[0]?.body)).toEqual([
        { role: "user", content: "hi" },
        { role: "assistant", content: "Hello." },
        { role: "user", content: "Weather in Hangzhou tomorrow?" },
        {
          role: "assistant",
          content: null,
          reasoning_content: "Need the date first.",
          tool_calls: [{ id: "call_date", type: "function", function: { name: "get_date", arguments: "{}" } }]
        },
        { role: "tool", tool_call_id: "call_date", content: "2025-12-01" },
        {
          role: "assistant",
          content: null,
          reasoning_content: "Tomorrow is 12-02. Now the weather.",
          tool_calls: [
            {
              id: "call_weather",
              type: "function",
              function: { name: "get_weather", arguments: '{"location":"Hangzhou","date":"2025-12-02"}' }
            }
          ]
        },
        { role: "tool", tool_call_id: "call_weather", content: "Cloudy 7~13°C" },
        { role: "assistant", content: "Cloudy, 7–13 °C.", reasoning_content: "" },
        { role: "user", content: "And the day after?" }
      ])
    })
  )

  it.scopedLive("a tool-call turn that ran without thinking gets no reasoning_content unless thinking is on now", () =>
    Effect.gen(function* () {
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "list" },
        { _tag: "assistant", id: "a1", text: "", model: "deepseek/deepseek-chat", toolCalls: [{ id: "call_1", name: "ls", arguments: {} }] },
        { _tag: "tool_result", id: "r1", callId: "call_1", name: "ls", text: "a.ts", isError: false }
      ]
      const plain = yield* setup(false)
      plain.fake.script([{ text: "ok" }])
      yield* Stream.runDrain(plain.client.stream(requestFor(plain.model, { system: "", items })))
      expect(messagesOf(plain.fake.requests[0]?.body)[1]).not.toHaveProperty("reasoning_content")

      const thinking = yield* setup(true)
      thinking.fake.script([{ text: "ok" }])
      yield* Stream.runDrain(thinking.client.stream(requestFor(thinking.model, { system: "", items })))
      expect(messagesOf(thinking.fake.requests[0]?.body)[1]).toMatchObject({ reasoning_content: "" })
    })
  )

  it.scopedLive("replays the reasoning it received, exactly, in the next request of the tool loop", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup(true)
      const thought = ["用户想知道日期；", "先调用 get_date。", " \"quoted\" ✓"]
      fake.script([{ reasoning: thought, toolCalls: [{ id: "call_00_d", name: "get_date", arguments: {} }] }, { text: "Monday." }])
      const user: TranscriptItem = { _tag: "user", id: "u1", text: "What day is it?" }
      const first = yield* collect(client.stream(requestFor(model, { system: "", items: [user] })))
      const items: ReadonlyArray<TranscriptItem> = [
        user,
        assistantFrom(first, "a1", model.ref),
        { _tag: "tool_result", id: "r1", callId: "call_00_d", name: "get_date", text: "Monday", isError: false }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "", items })))
      expect(messagesOf(fake.requests[1]?.body)[1]).toEqual({
        role: "assistant",
        content: null,
        reasoning_content: thought.join(""),
        tool_calls: [{ id: "call_00_d", type: "function", function: { name: "get_date", arguments: "{}" } }]
      })
    })
  )
})
