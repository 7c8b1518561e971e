import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { makeGeminiClient } from "../../../src/providers/gemini.ts"
import type { ImageBytes } from "../../../src/providers/model-client.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"
import { keyEnv, requestFor } from "./fixtures.ts"
import { geminiModel, geminiSetup, streamPath } from "./gemini-fixtures.ts"

const png: ImageBytes = { mime: "image/png", base64: "iVBORw0KGgo=" }
const jpeg: ImageBytes = { mime: "image/jpeg", base64: "/9j/4AAQ" }
const images = new Map([
  ["sha-png", png],
  ["sha-jpeg", jpeg]
])

const transcript: ReadonlyArray<TranscriptItem> = [
  {
    _tag: "user",
    id: "u1",
    text: "Fix the bug shown in [Image #1] and [Image #2]",
    images: [
      { sha256: "sha-png", mime: "image/png", marker: "[Image #1]" },
      { sha256: "sha-gone", mime: "image/png", marker: "[Image #2]" }
    ]
  },
  {
    _tag: "assistant",
    id: "a1",
    text: "",
    model: "gem/gemini-test",
    toolCalls: [
      { id: "fc_1", name: "read_file", arguments: { path: "a.ts" }, opaque: { protocol: "gemini", data: { idFromModel: true } } },
      { id: "fc_2", name: "screenshot", arguments: {}, opaque: { protocol: "gemini", data: { idFromModel: true } } }
    ]
  },
  { _tag: "tool_result", id: "r1", callId: "fc_1", name: "read_file", text: "const a = 1", isError: false },
  {
    _tag: "tool_result",
    id: "r2",
    callId: "fc_2",
    name: "screenshot",
    text: "[Image #3]",
    images: [{ sha256: "sha-jpeg", mime: "image/jpeg", marker: "[Image #3]" }],
    isError: false
  },
  { _tag: "note", id: "n1", text: "the operator switched models" },
  {
    _tag: "assistant",
    id: "a2",
    text: "",
    model: "gem/gemini-test",
    reasoning: [{ text: "half a thought", opaque: { protocol: "gemini", data: { on: "thought" } } }],
    incomplete: true
  },
  { _tag: "assistant", id: "a3", text: "Fixed.", model: "gem/gemini-test", finishReason: "stop" },
  { _tag: "user", id: "u2", text: "Thanks" }
]

describe("gemini adapter: the request as the server sees it", () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    vi.restoreAllMocks()
  })

  it.scopedLive("maps the transcript, images, tools and options", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ text: "ok" }])
      const tools = [
        {
          name: "read_file",
          description: "Read a file",
          inputSchema: {
            $schema: "http://json-schema.org/draft-07/schema#",
            type: "object",
            properties: { path: { type: "string" } },
            required: ["path"],
            additionalProperties: false
          }
        }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "Be brief.", items: transcript, tools, images })))
      const [request] = fake.requests
      expect(request?.method).toBe("POST")
      expect(request?.path).toBe(streamPath)
      expect(request?.body).toEqual({
        contents: [
          {
            role: "user",
            parts: [{ text: "Fix the bug shown in [Image #1] and [Image #2]" }, { inlineData: { mimeType: "image/png", data: png.base64 } }]
          },
          {
            role: "model",
            parts: [
              { functionCall: { id: "fc_1", name: "read_file", args: { path: "a.ts" } } },
              { functionCall: { id: "fc_2", name: "screenshot", args: {} } }
            ]
          },
          {
            role: "user",
            parts: [
              { functionResponse: { id: "fc_1", name: "read_file", response: { output: "const a = 1" } } },
              {
                functionResponse: {
                  id: "fc_2",
                  name: "screenshot",
                  response: { output: "[Image #3]" },
                  parts: [{ inlineData: { mimeType: "image/jpeg", data: jpeg.base64 } }]
                }
              }
            ]
          },
          { role: "model", parts: [{ text: "Fixed." }] },
          { role: "user", parts: [{ text: "Thanks" }] }
        ],
        systemInstruction: { parts: [{ text: "Be brief." }] },
        tools: [
          {
            functionDeclarations: [
              {
                name: "read_file",
                description: "Read a file",
                parametersJsonSchema: {
                  type: "object",
                  properties: { path: { type: "string" } },
                  required: ["path"],
                  additionalProperties: false
                }
              }
            ]
          }
        ],
        generationConfig: { maxOutputTokens: 4096 }
      })
    })
  )

  it.scopedLive("sends error results under `error`", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ text: "ok" }])
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "go" },
        {
          _tag: "assistant",
          id: "a1",
          text: "",
          model: "gem/gemini-test",
          toolCalls: [{ id: "fc_9", name: "bash", arguments: { cmd: "false" }, opaque: { protocol: "gemini", data: { idFromModel: true } } }]
        },
        { _tag: "tool_result", id: "r1", callId: "fc_9", name: "bash", text: "exit status 1", isError: true }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { items })))
      expect(fake.requests[0]?.body).toMatchObject({
        contents: [{}, {}, { role: "user", parts: [{ functionResponse: { id: "fc_9", name: "bash", response: { error: "exit status 1" } } }] }]
      })
    })
  )

  it.scopedLive("asks for thought summaries only from a reasoning model, and omits what is empty", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup({ capabilities: { reasoning: true } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "" })))
      expect(fake.requests[0]?.body).toEqual({
        contents: [{ role: "user", parts: [{ text: "hello" }] }],
        generationConfig: { maxOutputTokens: 4096, thinkingConfig: { includeThoughts: true } }
      })
    })
  )

  it.scopedLive("sends the API key in x-goog-api-key and the provider's headers", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup({ provider: { headers: { "X-Title": "Crystal" } } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      const headers = fake.requests[0]?.headers
      expect(headers?.["x-goog-api-key"]).toBe("gm-test-key")
      expect(headers?.["x-title"]).toBe("Crystal")
      expect(headers?.["content-type"]).toBe("application/json")
      expect(headers).not.toHaveProperty("authorization")
    })
  )

  it.scopedLive("sends no key header to a provider that takes no key", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup({ provider: { apiKeyEnv: [] }, env: {} })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests[0]?.headers).not.toHaveProperty("x-goog-api-key")
      expect(fake.requests[0]?.headers).not.toHaveProperty("authorization")
    })
  )

  it.scopedLive("honours an API version in the base URL", () =>
    Effect.gen(function* () {
      const { fake } = yield* geminiSetup()
      fake.script([{ text: "ok" }])
      const model = geminiModel(`${fake.url}/v1alpha/`)
      yield* Stream.runDrain(makeGeminiClient(model, { [keyEnv]: "k" }).stream(requestFor(model)))
      expect(fake.requests[0]?.path).toBe("/v1alpha/models/gemini-test:streamGenerateContent?alt=sse")
    })
  )

  it.scopedLive("ignores Vertex AI, base-URL and key variables of the environment, and says nothing", () =>
    Effect.gen(function* () {
      vi.stubEnv("GOOGLE_GENAI_USE_VERTEXAI", "true")
      vi.stubEnv("GOOGLE_GENAI_USE_ENTERPRISE", "true")
      vi.stubEnv("GOOGLE_CLOUD_PROJECT", "leaked-project")
      vi.stubEnv("GOOGLE_CLOUD_LOCATION", "us-central1")
      vi.stubEnv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")
      vi.stubEnv("GOOGLE_API_KEY", "leaked-google-key")
      vi.stubEnv("GEMINI_API_KEY", "leaked-gemini-key")
      const warn = vi.spyOn(console, "warn")
      const debug = vi.spyOn(console, "debug")
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests[0]?.path).toBe(streamPath)
      expect(fake.requests[0]?.headers["x-goog-api-key"]).toBe("gm-test-key")
      expect(fake.requests[0]?.headers).not.toHaveProperty("x-goog-user-project")
      expect(warn).not.toHaveBeenCalled()
      expect(debug).not.toHaveBeenCalled()
    })
  )

  it.scopedLive("creates the SDK client once and reuses it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ text: "one" }, { text: "two" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests.map((request) => request.path)).toEqual([streamPath, streamPath])
    })
  )
})
