import { afterEach, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { TranscriptItem } from "../../../src/session/items.ts"
import { chatSetup, collectFailure, requestFor } from "./fixtures.ts"

const transcript: ReadonlyArray<TranscriptItem> = [
  { _tag: "user", id: "u1", text: "Fix the bug in a.ts" },
  {
    _tag: "assistant",
    id: "a1",
    text: "",
    model: "local/test-model",
    reasoning: [{ text: "The bug is probably in a.ts." }],
    toolCalls: [
      { id: "call_1", name: "read_file", arguments: { path: "a.ts" } },
      { id: "call_2", name: "edit", arguments: '{"path": "a.ts", "old' }
    ]
  },
  { _tag: "tool_result", id: "r1", callId: "call_1", name: "read_file", text: "const a = 1", isError: false },
  { _tag: "tool_result", id: "r2", callId: "call_2", name: "edit", text: "invalid JSON arguments", isError: true },
  { _tag: "note", id: "n1", text: "the operator switched models" },
  { _tag: "assistant", id: "a2", text: "", model: "local/test-model", incomplete: true },
  { _tag: "assistant", id: "a3", text: "Fixed.", model: "local/test-model", finishReason: "stop" },
  { _tag: "user", id: "u2", text: "Thanks" }
]

describe("openai-chat adapter: the request as the server sees it", () => {
  const sdkVariables = ["OPENAI_CUSTOM_HEADERS", "OPENAI_ORG_ID"] as const
  const saved = sdkVariables.map((name) => [name, process.env[name]] as const)
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  it.scopedLive("maps the transcript, tools and options", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ text: "ok" }])
      const tools = [
        {
          name: "read_file",
          description: "Read a file",
          inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
        }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "Be brief.", items: transcript, tools })))
      const [request] = fake.requests
      expect(request?.method).toBe("POST")
      expect(request?.path).toBe("/v1/chat/completions")
      expect(request?.body).toEqual({
        model: "test-model",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Fix the bug in a.ts" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
              { id: "call_2", type: "function", function: { name: "edit", arguments: '{"path": "a.ts", "old' } }
            ]
          },
          { role: "tool", tool_call_id: "call_1", content: "const a = 1" },
          { role: "tool", tool_call_id: "call_2", content: "invalid JSON arguments" },
          { role: "assistant", content: "Fixed." },
          { role: "user", content: "Thanks" }
        ],
        tools: [
          {
            type: "function",
            function: {
              name: "read_file",
              description: "Read a file",
              parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
            }
          }
        ],
        max_tokens: 4096,
        stream: true,
        stream_options: { include_usage: true }
      })
    })
  )

  it.scopedLive("omits tools when there are none", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests[0]?.body).not.toHaveProperty("tools")
    })
  )

  it.scopedLive("sends the API key and the provider's headers", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup({ headers: { "X-Title": "Crystal", "HTTP-Referer": "https://example.test" } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      const headers = fake.requests[0]?.headers
      expect(headers?.["authorization"]).toBe("Bearer sk-test")
      expect(headers?.["x-title"]).toBe("Crystal")
      expect(headers?.["http-referer"]).toBe("https://example.test")
      expect(headers?.["content-type"]).toBe("application/json")
    })
  )

  it.scopedLive("sends no Authorization header to a provider that takes no key", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup({ apiKeyEnv: [] }, {})
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests[0]?.headers).not.toHaveProperty("authorization")
    })
  )

  it.scopedLive("keeps the SDK's environment out of the request", () =>
    Effect.gen(function* () {
      process.env["OPENAI_CUSTOM_HEADERS"] = "X-Leaked: from-env\nX-Title: from-env"
      process.env["OPENAI_ORG_ID"] = "org-from-env"
      const { fake, model, client } = yield* chatSetup({ headers: { "X-Title": "Crystal" } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      const headers = fake.requests[0]?.headers
      expect(headers).not.toHaveProperty("x-leaked")
      expect(headers?.["x-title"]).toBe("Crystal")
      expect(headers).not.toHaveProperty("openai-organization")
    })
  )

  it.scopedLive("reports an OPENAI_CUSTOM_HEADERS the SDK refuses as a ProviderError, sending nothing", () =>
    Effect.gen(function* () {
      process.env["OPENAI_CUSTOM_HEADERS"] = "Not A Token: x"
      const { fake, model, client } = yield* chatSetup()
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "bad_request", provider: "local" })
      expect(error.message).toContain("could not set up the OpenAI SDK for local")
      expect(fake.requests).toHaveLength(0)
    })
  )

  it.scopedLive("creates the SDK client once and reuses it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ text: "one" }, { text: "two" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests.map((request) => request.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"])
    })
  )
})
