import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { makeAnthropicClient } from "../../../src/providers/anthropic.ts"
import { anthropicRequestBody, takesAdaptiveThinking, thinkingBudget } from "../../../src/providers/anthropic-encode.ts"
import type { ImageBytes } from "../../../src/providers/model-client.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"
import { anthropicModel, anthropicSetup } from "./anthropic-fixtures.ts"
import { keyEnv, requestFor } from "./fixtures.ts"

const transcript: ReadonlyArray<TranscriptItem> = [
  { _tag: "user", id: "u1", text: "Fix the bug in a.ts" },
  {
    _tag: "assistant",
    id: "a1",
    text: "",
    model: "claude/test-claude",
    toolCalls: [
      { id: "toolu_1", name: "read_file", arguments: { path: "a.ts" } },
      { id: "call.2/other", name: "edit", arguments: '{"path": "a.ts", "old' }
    ]
  },
  { _tag: "tool_result", id: "r1", callId: "toolu_1", name: "read_file", text: "const a = 1", isError: false },
  { _tag: "tool_result", id: "r2", callId: "call.2/other", name: "edit", text: "invalid JSON arguments", isError: true },
  { _tag: "note", id: "n1", text: "the operator switched models" },
  { _tag: "assistant", id: "a2", text: "", model: "claude/test-claude", incomplete: true },
  { _tag: "assistant", id: "a3", text: "Fixed.", model: "claude/test-claude", finishReason: "stop" },
  { _tag: "user", id: "u2", text: "Thanks" }
]

const png: ImageBytes = { mime: "image/png", base64: "iVBORw0KGgo=" }
const jpeg: ImageBytes = { mime: "image/jpeg", base64: "/9j/4AAQ" }

describe("anthropic adapter: the request as the server sees it", () => {
  const savedCustomHeaders = process.env["ANTHROPIC_CUSTOM_HEADERS"]
  const savedApiKey = process.env["ANTHROPIC_API_KEY"]
  afterEach(() => {
    for (const [name, value] of [
      ["ANTHROPIC_CUSTOM_HEADERS", savedCustomHeaders],
      ["ANTHROPIC_API_KEY", savedApiKey]
    ] as const) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  it.scopedLive("maps the transcript, system text, tools and options", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
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
      expect(request?.path).toBe("/v1/messages")
      expect(request?.body).toEqual({
        model: "test-claude",
        max_tokens: 8192,
        system: "Be brief.",
        messages: [
          { role: "user", content: [{ type: "text", text: "Fix the bug in a.ts" }] },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
              { type: "tool_use", id: "call_2_other", name: "edit", input: {} }
            ]
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: "const a = 1" },
              { type: "tool_result", tool_use_id: "call_2_other", content: "invalid JSON arguments", is_error: true }
            ]
          },
          { role: "assistant", content: [{ type: "text", text: "Fixed." }] },
          { role: "user", content: [{ type: "text", text: "Thanks" }] }
        ],
        tools: [
          {
            name: "read_file",
            description: "Read a file",
            input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
          }
        ],
        stream: true
      })
    })
  )

  it.scopedLive("omits system, tools and thinking when there are none", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "" })))
      expect(fake.requests[0]?.body).toEqual({
        model: "test-claude",
        max_tokens: 8192,
        messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }],
        stream: true
      })
    })
  )

  it.scopedLive("sends user images before the text, tool-result images after it, as base64 image blocks", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ text: "ok" }])
      const items: ReadonlyArray<TranscriptItem> = [
        {
          _tag: "user",
          id: "u1",
          text: "What differs between [Image #1] and [Image #2]? And [Image #3]?",
          images: [
            { sha256: "aa", mime: "image/png", marker: "[Image #1]" },
            { sha256: "bb", mime: "image/jpeg", marker: "[Image #2]" },
            { sha256: "missing", mime: "image/png", marker: "[Image #3]" }
          ]
        },
        {
          _tag: "assistant",
          id: "a1",
          text: "",
          model: "claude/test-claude",
          toolCalls: [{ id: "toolu_s", name: "screenshot", arguments: {} }]
        },
        {
          _tag: "tool_result",
          id: "r1",
          callId: "toolu_s",
          name: "screenshot",
          text: "[Image #4] the screen",
          images: [{ sha256: "aa", mime: "image/png", marker: "[Image #4]" }],
          isError: false
        }
      ]
      const images = new Map([
        ["aa", png],
        ["bb", jpeg]
      ])
      yield* Stream.runDrain(client.stream(requestFor(model, { items, images })))
      const body = fake.requests[0]?.body as { messages: ReadonlyArray<unknown> } // the server records parsed JSON
      expect(body.messages).toEqual([
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
            { type: "text", text: "What differs between [Image #1] and [Image #2]? And [Image #3]?" }
          ]
        },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_s", name: "screenshot", input: {} }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_s",
              content: [
                { type: "text", text: "[Image #4] the screen" },
                { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }
              ]
            }
          ]
        }
      ])
    })
  )

  it.scopedLive("asks for extended thinking when the model entry says reasoning", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup({ capabilities: { reasoning: true, maxOutputTokens: 16_000 } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests[0]?.body).toMatchObject({ max_tokens: 16_000, thinking: { type: "enabled", budget_tokens: 8_000 } })
    })
  )

  it.scopedLive("sends the API key, the API version and the provider's headers", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup({ provider: { headers: { "X-Title": "Crystal" } } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      const headers = fake.requests[0]?.headers
      // This SDK version sends the key as a bearer token and pins its own API version.
      expect(headers?.["authorization"]).toBe("Bearer sk-ant-test")
      expect(headers?.["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      expect(headers?.["x-title"]).toBe("Crystal")
      expect(headers?.["content-type"]).toBe("application/json")
      expect(headers?.["x-stainless-retry-count"]).toBe("0")
      expect(headers).not.toHaveProperty("traceparent")
    })
  )

  it.scopedLive("sends no credentials to a provider that takes no key, even with ANTHROPIC_API_KEY set", () =>
    Effect.gen(function* () {
      process.env["ANTHROPIC_API_KEY"] = "sk-ant-someone-else"
      const { fake, model, client } = yield* anthropicSetup({ provider: { apiKeyEnv: [] }, env: {} })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      const headers = fake.requests[0]?.headers
      expect(headers).not.toHaveProperty("authorization")
      expect(headers).not.toHaveProperty("x-api-key")
    })
  )

  it.scopedLive("does not pass on the headers in ANTHROPIC_CUSTOM_HEADERS, but keeps the provider's own", () =>
    Effect.gen(function* () {
      process.env["ANTHROPIC_CUSTOM_HEADERS"] = "X-Leak: secret\nX-Title: from-env"
      const { fake, model, client } = yield* anthropicSetup({ provider: { headers: { "X-Title": "Crystal" } } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      const headers = fake.requests[0]?.headers
      expect(headers).not.toHaveProperty("x-leak")
      expect(headers?.["x-title"]).toBe("Crystal")
    })
  )

  it.scopedLive("writes nothing to the terminal, even for models the SDK calls deprecated", () =>
    Effect.gen(function* () {
      const { fake } = yield* anthropicSetup()
      const lines: Array<unknown> = []
      const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
        vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => void lines.push(args))
      )
      yield* Effect.addFinalizer(() => Effect.sync(() => spies.forEach((spy) => spy.mockRestore())))
      fake.script([{ text: "ok" }, { text: "ok" }])
      for (const id of ["claude-sonnet-4-5", "claude-opus-4-6"]) {
        const model = { ...anthropicModel(fake.url, {}, { reasoning: true }), id }
        yield* Stream.runDrain(makeAnthropicClient(model, { [keyEnv]: "k" }).stream(requestFor(model)))
      }
      expect(fake.requests).toHaveLength(2)
      expect(lines).toEqual([])
    })
  )

  it.scopedLive("creates the SDK client once and reuses it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ text: "one" }, { text: "two" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests.map((request) => request.path)).toEqual(["/v1/messages", "/v1/messages"])
    })
  )
})

describe("anthropic request body", () => {
  const budgetCases: ReadonlyArray<readonly [number, number | undefined]> = [
    [1_024, undefined],
    [2_047, undefined],
    [2_048, 1_024],
    [8_192, 4_096],
    [64_000, 32_000],
    [128_000, 32_000]
  ]
  for (const [maxTokens, budget] of budgetCases) {
    it(`max_tokens ${maxTokens} gives a thinking budget of ${String(budget)}`, () => {
      expect(thinkingBudget(maxTokens)).toBe(budget)
    })
  }

  const adaptiveCases: ReadonlyArray<readonly [string, boolean]> = [
    ["claude-sonnet-5-5", true],
    ["claude-opus-5", true],
    ["claude-haiku-5-5", true],
    ["claude-fable-5-2", true],
    ["claude-mythos-preview", true],
    ["claude-opus-4-8", true],
    ["claude-opus-4-6", true],
    ["claude-sonnet-4-6", true],
    ["claude-sonnet-4-5", false],
    ["claude-sonnet-4-5-20250929", false],
    ["claude-opus-4-5-20251101", false],
    ["claude-haiku-4-5", false],
    ["claude-3-7-sonnet-latest", false],
    ["test-claude", false]
  ]
  for (const [id, adaptive] of adaptiveCases) {
    it(`${id} ${adaptive ? "takes adaptive thinking" : "takes a thinking budget"}`, () => {
      const model = { ...anthropicModel("http://unused", {}, { reasoning: true, maxOutputTokens: 16_000 }), id }
      expect(takesAdaptiveThinking(id)).toBe(adaptive)
      expect(anthropicRequestBody(requestFor(model)).thinking).toEqual(
        adaptive ? { type: "adaptive", display: "summarized" } : { type: "enabled", budget_tokens: 8_000 }
      )
    })
  }

  it("leaves thinking off when the output budget is too small for it", () => {
    const model = anthropicModel("http://unused", {}, { reasoning: true, maxOutputTokens: 1_500 })
    expect(anthropicRequestBody(requestFor(model))).not.toHaveProperty("thinking")
  })

  it("leaves thinking off while a tool loop continues from an assistant message without thinking", () => {
    const model = anthropicModel("http://unused", {}, { reasoning: true })
    const items: ReadonlyArray<TranscriptItem> = [
      { _tag: "user", id: "u1", text: "list files" },
      { _tag: "assistant", id: "a1", text: "", model: "other/gpt", toolCalls: [{ id: "call_1", name: "ls", arguments: {} }] },
      { _tag: "tool_result", id: "r1", callId: "call_1", name: "ls", text: "a.ts", isError: false }
    ]
    expect(anthropicRequestBody(requestFor(model, { items }))).not.toHaveProperty("thinking")
    const answered: ReadonlyArray<TranscriptItem> = [
      ...items,
      { _tag: "assistant", id: "a2", text: "a.ts", model: "other/gpt" },
      { _tag: "user", id: "u2", text: "and now?" }
    ]
    expect(anthropicRequestBody(requestFor(model, { items: answered }))).toHaveProperty("thinking")
  })

  it("merges a user message that follows tool results into their message, results first", () => {
    const model = anthropicModel("http://unused")
    const items: ReadonlyArray<TranscriptItem> = [
      { _tag: "user", id: "u1", text: "go" },
      { _tag: "assistant", id: "a1", text: "", model: "claude/test-claude", toolCalls: [{ id: "t1", name: "ls", arguments: {} }] },
      { _tag: "tool_result", id: "r1", callId: "t1", name: "ls", text: "", isError: false },
      { _tag: "user", id: "u2", text: "stop there" }
    ]
    expect(anthropicRequestBody(requestFor(model, { items })).messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1" },
        { type: "text", text: "stop there" }
      ]
    })
  })

  it("skips images whose type the API does not take", () => {
    const model = anthropicModel("http://unused")
    const items: ReadonlyArray<TranscriptItem> = [
      { _tag: "user", id: "u1", text: "[Image #1]", images: [{ sha256: "bmp", mime: "image/bmp" }] }
    ]
    const images = new Map([["bmp", { mime: "image/bmp", base64: "Qk0=" }]])
    expect(anthropicRequestBody(requestFor(model, { items, images })).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "[Image #1]" }] }
    ])
  })
})
