import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ModelEntry, ResolvedProvider } from "../../../src/providers/catalog.ts"
import type { ImageBytes, ModelEvent } from "../../../src/providers/model-client.ts"
import { makeOllamaClient } from "../../../src/providers/ollama.ts"
import type { AssistantMessage, ReasoningPart, TranscriptItem } from "../../../src/session/items.ts"
import { collect, fakeLlm, keyEnv, requestFor } from "./fixtures.ts"

const ollamaModel = (baseURL: string, provider: Partial<ResolvedProvider> = {}, reasoning = false): ModelEntry => ({
  ref: "ollama/qwen3:8b",
  id: "qwen3:8b",
  provider: { name: "ollama", protocol: "ollama", baseURL, apiKeyEnv: [], headers: {}, ...provider },
  capabilities: { contextWindow: 40_960, maxOutputTokens: 4_096, imageInput: true, reasoning },
  listed: true
})

const setup = (options: { provider?: Partial<ResolvedProvider>; reasoning?: boolean; env?: Record<string, string> } = {}) =>
  Effect.map(fakeLlm, (fake) => {
    const model = ollamaModel(fake.url, options.provider, options.reasoning)
    return { fake, model, client: makeOllamaClient(model, options.env ?? {}) }
  })

const png: ImageBytes = { mime: "image/png", base64: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAcCBlCwAAAABJRU5ErkJggg==" }
const jpeg: ImageBytes = { mime: "image/jpeg", base64: "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAP" }

/** What the engine would store from a streamed answer. */
const assistantFrom = (events: ReadonlyArray<ModelEvent>, model: string): AssistantMessage => {
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
  return { _tag: "assistant", id: "a-live", text, model, reasoning, ...(toolCalls.length === 0 ? {} : { toolCalls }) }
}

const transcript: ReadonlyArray<TranscriptItem> = [
  {
    _tag: "user",
    id: "u1",
    text: "What is in [Image #1] and [Image #2]?",
    images: [
      { sha256: "png-hash", mime: "image/png", marker: "[Image #1]" },
      { sha256: "gone-hash", mime: "image/png", marker: "[Image #2]" }
    ]
  },
  {
    _tag: "assistant",
    id: "a1",
    text: "",
    model: "ollama/qwen3:8b",
    reasoning: [{ text: "Look at the file.", opaque: { protocol: "ollama", data: null } }],
    toolCalls: [
      { id: "call_1", name: "view_image", arguments: { path: "shot.jpg" } },
      { id: "call_2", name: "edit", arguments: '{"path": "a.ts", "old' }
    ]
  },
  {
    _tag: "tool_result",
    id: "r1",
    callId: "call_1",
    name: "view_image",
    text: "[Image #3]",
    images: [{ sha256: "jpeg-hash", mime: "image/jpeg", marker: "[Image #3]" }],
    isError: false
  },
  { _tag: "tool_result", id: "r2", callId: "call_2", name: "edit", text: "invalid JSON arguments", isError: true },
  { _tag: "note", id: "n1", text: "the operator switched models" },
  { _tag: "assistant", id: "a2", text: "", model: "ollama/qwen3:8b", incomplete: true },
  {
    _tag: "assistant",
    id: "a3",
    text: "A cat.",
    model: "anthropic/claude-sonnet-4-5",
    reasoning: [{ text: "signed thoughts", opaque: { protocol: "anthropic", data: { signature: "sig" } } }]
  },
  { _tag: "user", id: "u2", text: "Thanks" }
]

const images = new Map([
  ["png-hash", png],
  ["jpeg-hash", jpeg]
])

describe("ollama adapter: the request as the server sees it", () => {
  it.scopedLive("maps the transcript, images, tools and options", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ text: "ok" }])
      const tools = [
        {
          name: "view_image",
          description: "Look at an image",
          inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
        }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "Be brief.", items: transcript, tools, images })))
      const [request] = fake.requests
      expect(request?.method).toBe("POST")
      expect(request?.path).toBe("/api/chat")
      expect(request?.body).toEqual({
        model: "qwen3:8b",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "What is in [Image #1] and [Image #2]?", images: [png.base64] },
          {
            role: "assistant",
            content: "",
            thinking: "Look at the file.",
            tool_calls: [
              { id: "call_1", function: { name: "view_image", arguments: { path: "shot.jpg" } } },
              { id: "call_2", function: { name: "edit", arguments: {} } }
            ]
          },
          { role: "tool", content: "[Image #3]", tool_name: "view_image", tool_call_id: "call_1", images: [jpeg.base64] },
          { role: "tool", content: "invalid JSON arguments", tool_name: "edit", tool_call_id: "call_2" },
          { role: "assistant", content: "A cat." },
          { role: "user", content: "Thanks" }
        ],
        tools: [
          {
            type: "function",
            function: {
              name: "view_image",
              description: "Look at an image",
              parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
            }
          }
        ],
        options: { num_ctx: 40_960, num_predict: 4_096 },
        stream: true
      })
    })
  )

  it.scopedLive("asks for thinking only when the model is declared to reason", () =>
    Effect.gen(function* () {
      const plain = yield* setup()
      plain.fake.script([{ text: "ok" }])
      yield* Stream.runDrain(plain.client.stream(requestFor(plain.model)))
      expect(plain.fake.requests[0]?.body).not.toHaveProperty("think")

      const thinking = yield* setup({ reasoning: true })
      thinking.fake.script([{ text: "ok" }])
      yield* Stream.runDrain(thinking.client.stream(requestFor(thinking.model)))
      expect(thinking.fake.requests[0]?.body).toMatchObject({ think: true })
    })
  )

  it.scopedLive("replays the thinking it received to the same model, exactly", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup({ reasoning: true })
      const thought = ["The user wants ", "the list; \"ls\" ", "then ✓ report."]
      fake.script([{ reasoning: thought, text: "Listing.", toolCalls: [{ name: "ls", arguments: { path: "." } }] }, { text: "Done." }])
      const first = yield* collect(client.stream(requestFor(model, { items: [{ _tag: "user", id: "u1", text: "list" }] })))
      const answer = assistantFrom(first, model.ref)
      const callId = answer.toolCalls?.[0]?.id ?? ""
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "list" },
        answer,
        { _tag: "tool_result", id: "r1", callId, name: "ls", text: "a.ts", isError: false }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "", items })))
      const messages = (fake.requests[1]?.body as { messages: ReadonlyArray<unknown> }).messages
      expect(messages[1]).toEqual({
        role: "assistant",
        content: "Listing.",
        thinking: thought.join(""),
        tool_calls: [{ id: callId, function: { name: "ls", arguments: { path: "." } } }]
      })
    })
  )

  it.scopedLive("drops thinking written by another model, even over the same protocol", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ text: "ok" }])
      const items: ReadonlyArray<TranscriptItem> = [
        { _tag: "user", id: "u1", text: "hi" },
        {
          _tag: "assistant",
          id: "a1",
          text: "Hello.",
          model: "ollama/llama3.2",
          reasoning: [{ text: "llama's thoughts", opaque: { protocol: "ollama", data: null } }]
        },
        {
          _tag: "assistant",
          id: "a2",
          text: "Again.",
          model: "ollama/qwen3:8b",
          reasoning: [{ text: "no state, unknown origin" }]
        }
      ]
      yield* Stream.runDrain(client.stream(requestFor(model, { system: "", items })))
      expect((fake.requests[0]?.body as { messages: unknown }).messages).toEqual([
        { role: "user", content: "hi" },
        { role: "assistant", content: "Hello." },
        { role: "assistant", content: "Again." }
      ])
    })
  )

  it.scopedLive("sends the provider's headers and no Authorization to a keyless server", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup({ provider: { headers: { "X-Team": "crystal" } } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      const headers = fake.requests[0]?.headers
      expect(headers?.["x-team"]).toBe("crystal")
      expect(headers?.["content-type"]).toBe("application/json")
      expect(headers).not.toHaveProperty("authorization")
    })
  )

  it.scopedLive("sends the key as a bearer token when the provider names one", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup({ provider: { apiKeyEnv: [keyEnv] }, env: { [keyEnv]: "ollama-key" } })
      fake.script([{ text: "ok" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests[0]?.headers["authorization"]).toBe("Bearer ollama-key")
    })
  )

  it.scopedLive("keeps an Authorization header the provider configured", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup({ provider: { headers: { Authorization: "Basic dXNlcjpwdw==" } } })
      fake.script([{ text: "ok" }, { text: "again" }])
      yield* Stream.runDrain(client.stream(requestFor(model)))
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests.map((request) => request.headers["authorization"])).toEqual(["Basic dXNlcjpwdw==", "Basic dXNlcjpwdw=="])
    })
  )
})
