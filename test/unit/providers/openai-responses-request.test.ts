import { afterEach, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ImageBytes } from "../../../src/providers/model-client.ts"
import { responsesRequestBody } from "../../../src/providers/openai-responses-encode.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"
import { requestFor } from "./fixtures.ts"
import { responsesModel, responsesSetup } from "./openai-responses-setup.ts"

const transcript: ReadonlyArray<TranscriptItem> = [
  { _tag: "user", id: "u1", text: "Fix the bug in a.ts" },
  {
    _tag: "assistant",
    id: "a1",
    text: "",
    model: "local/other-model",
    reasoning: [{ text: "The bug is probably in a.ts." }],
    toolCalls: [
      { id: "call_1", name: "read_file", arguments: { path: "a.ts" } },
      { id: "call_2", name: "edit", arguments: '{"path": "a.ts", "old' }
    ]
  },
  { _tag: "tool_result", id: "r1", callId: "call_1", name: "read_file", text: "const a = 1", isError: false },
  { _tag: "tool_result", id: "r2", callId: "call_2", name: "edit", text: "invalid JSON arguments", isError: true },
  { _tag: "note", id: "n1", text: "the operator switched models" },
  { _tag: "assistant", id: "a2", text: "", model: "openai/gpt-test", incomplete: true },
  { _tag: "assistant", id: "a3", text: "Fixed.", model: "local/other-model", finishReason: "stop" },
  { _tag: "user", id: "u2", text: "Thanks" }
]

const readFile = {
  name: "read_file",
  description: "Read a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
}

const png: ImageBytes = { mime: "image/png", base64: "iVBORw0KGgo=" }
const jpeg: ImageBytes = { mime: "image/jpeg", base64: "/9j/4AAQ" }

describe("openai-responses adapter: the request as the server sees it", () => {
  const sdkVariables = ["OPENAI_CUSTOM_HEADERS", "OPENAI_ORG_ID"] as const
  const saved = sdkVariables.map((name) => [name, process.env[name]] as const)
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  it.scopedLive("maps the transcript, tools and options, stateless", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "Be brief.", items: transcript, tools: [readFile] })))
      const [request] = fake.requests
      expect(request?.method).toBe("POST")
      expect(request?.path).toBe("/v1/responses")
      expect(request?.body).toEqual({
        model: "gpt-test",
        instructions: "Be brief.",
        input: [
          { type: "message", role: "user", content: "Fix the bug in a.ts" },
          { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' },
          { type: "function_call", call_id: "call_2", name: "edit", arguments: '{"path": "a.ts", "old' },
          { type: "function_call_output", call_id: "call_1", output: "const a = 1" },
          { type: "function_call_output", call_id: "call_2", output: "invalid JSON arguments" },
          { type: "message", role: "assistant", content: "Fixed." },
          { type: "message", role: "user", content: "Thanks" }
        ],
        tools: [
          {
            type: "function",
            name: "read_file",
            description: "Read a file",
            parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
            strict: false
          }
        ],
        max_output_tokens: 8192,
        store: false,
        include: ["reasoning.encrypted_content"],
        reasoning: { summary: "auto" },
        stream: true
      })
    })
  )

  it.scopedLive("asks a model without reasoning for neither reasoning nor encrypted content, and omits empty parts", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup({ capabilities: { reasoning: false } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "" })))
      const body = fake.requests[0]?.body
      expect(body).not.toHaveProperty("include")
      expect(body).not.toHaveProperty("reasoning")
      expect(body).not.toHaveProperty("instructions")
      expect(body).not.toHaveProperty("tools")
    })
  )

  it.scopedLive("sends user images as input_image data URLs, skipping an image without bytes", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ text: "a cat" }])
      const items: ReadonlyArray<TranscriptItem> = [
        {
          _tag: "user",
          id: "u1",
          text: "What is in [Image #1] and [Image #2] and [Image #3]?",
          images: [
            { sha256: "aaa", mime: "image/png", marker: "[Image #1]" },
            { sha256: "missing", mime: "image/png", marker: "[Image #2]" },
            { sha256: "bbb", mime: "image/jpeg", marker: "[Image #3]" }
          ]
        }
      ]
      const images = new Map([
        ["aaa", png],
        ["bbb", jpeg]
      ])
      yield* Stream.runDrain(client.stream(requestFor(model, { items, images })))
      expect(fake.requests[0]?.body).toMatchObject({
        input: [
          {
            type: "message",
            role: "user",
            content: [
              { type: "input_text", text: "What is in [Image #1] and [Image #2] and [Image #3]?" },
              { type: "input_image", detail: "auto", image_url: "data:image/png;base64,iVBORw0KGgo=" },
              { type: "input_image", detail: "auto", image_url: "data:image/jpeg;base64,/9j/4AAQ" }
            ]
          }
        ]
      })
    })
  )

  it.scopedLive("sends tool-result images inside the function_call_output", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ text: "a chart" }])
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "Look at chart.png" },
        {
          _tag: "assistant",
          id: "a1",
          text: "",
          model: "openai/gpt-test",
          toolCalls: [
            { id: "call_1", name: "view_image", arguments: { path: "chart.png" } },
            { id: "call_2", name: "view_image", arguments: { path: "gone.png" } }
          ]
        },
        {
          _tag: "tool_result",
          id: "r1",
          callId: "call_1",
          name: "view_image",
          text: "[Image #1]",
          images: [{ sha256: "aaa", mime: "image/png", marker: "[Image #1]" }],
          isError: false
        },
        {
          _tag: "tool_result",
          id: "r2",
          callId: "call_2",
          name: "view_image",
          text: "[Image #2]",
          images: [{ sha256: "missing", mime: "image/png", marker: "[Image #2]" }],
          isError: false
        }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { items, images: new Map([["aaa", png]]) })))
      const body = fake.requests[0]?.body as { readonly input: ReadonlyArray<unknown> }
      expect(body.input.slice(3)).toEqual([
        {
          type: "function_call_output",
          call_id: "call_1",
          output: [
            { type: "input_text", text: "[Image #1]" },
            { type: "input_image", detail: "auto", image_url: "data:image/png;base64,iVBORw0KGgo=" }
          ]
        },
        { type: "function_call_output", call_id: "call_2", output: "[Image #2]" }
      ])
    })
  )

  it("passes a service tier through when one is given", () => {
    const model = responsesModel("http://127.0.0.1:1/v1")
    expect(responsesRequestBody(requestFor(model), { serviceTier: "flex" })).toMatchObject({ service_tier: "flex" })
    expect(responsesRequestBody(requestFor(model))).not.toHaveProperty("service_tier")
  })

  it.scopedLive("sends the API key and the provider's headers", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup({ provider: { headers: { "X-Title": "Crystal" } } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      const headers = fake.requests[0]?.headers
      expect(headers?.["authorization"]).toBe("Bearer sk-test")
      expect(headers?.["x-title"]).toBe("Crystal")
      expect(headers).not.toHaveProperty("openai-organization")
      expect(headers).not.toHaveProperty("openai-project")
    })
  )

  it.scopedLive("sends no Authorization header to a provider that takes no key", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup({ provider: { apiKeyEnv: [] }, env: {} })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests[0]?.headers).not.toHaveProperty("authorization")
    })
  )

  it.scopedLive("keeps the SDK's environment out of the request", () =>
    Effect.gen(function* () {
      process.env["OPENAI_CUSTOM_HEADERS"] = "X-Leaked: from-env\nX-Title: from-env"
      process.env["OPENAI_ORG_ID"] = "org-from-env"
      const { fake, model, client } = yield* responsesSetup({ provider: { headers: { "X-Title": "Crystal" } } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      const headers = fake.requests[0]?.headers
      expect(headers).not.toHaveProperty("x-leaked")
      expect(headers?.["x-title"]).toBe("Crystal")
      expect(headers).not.toHaveProperty("openai-organization")
    })
  )

  it.scopedLive("creates the SDK client once and reuses it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ text: "one" }, { text: "two" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests.map((request) => request.path)).toEqual(["/v1/responses", "/v1/responses"])
    })
  )
})
