import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ModelEntry, ResolvedProvider } from "../../../src/providers/catalog.ts"
import { makeOllamaClient } from "../../../src/providers/ollama.ts"
import { startFakeLlm } from "../../support/fake-llm/server.ts"
import { collectFailure, fakeLlm, keyEnv, requestFor } from "./fixtures.ts"

const ollamaModel = (baseURL: string, provider: Partial<ResolvedProvider> = {}): ModelEntry => ({
  ref: "ollama/qwen3:8b",
  id: "qwen3:8b",
  provider: { name: "ollama", protocol: "ollama", baseURL, apiKeyEnv: [], headers: {}, ...provider },
  capabilities: { contextWindow: 40_960, maxOutputTokens: 4_096, imageInput: false, reasoning: false },
  listed: true
})

const setup = (provider: Partial<ResolvedProvider> = {}, env: Record<string, string> = {}) =>
  Effect.map(fakeLlm, (fake) => {
    const model = ollamaModel(fake.url, provider)
    return { fake, model, client: makeOllamaClient(model, env) }
  })

const line = (json: object): string => `${JSON.stringify(json)}\n`
const textLine = (content: string) => line({ model: "qwen3:8b", created_at: "t", message: { role: "assistant", content }, done: false })
const ndjson = { "content-type": "application/x-ndjson" }

afterEach(() => {
  vi.restoreAllMocks()
})

/** The SDK logs some failures with console.log / console.warn; the adapter must keep it quiet. */
const watchConsole = () => [vi.spyOn(console, "log"), vi.spyOn(console, "warn"), vi.spyOn(console, "error")]

describe("ollama adapter: errors", () => {
  it.scopedLive("404 for an unknown model is not_found and says how to pull it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "error", status: 404 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "not_found", status: 404, provider: "ollama" })
      expect(error.message).toBe(
        `ollama at ${fake.url} does not have the model 'qwen3:8b' ` +
          '(HTTP 404: model "qwen3:8b" not found, try pulling it first); download it with `ollama pull qwen3:8b`'
      )
    })
  )

  it.scopedLive("a 404 that is not about the model (a wrong base URL) gets the generic message", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "error", status: 404, body: "404 page not found" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("not_found")
      expect(error.message).toContain(`ollama has no model 'qwen3:8b' at ${fake.url}`)
      expect(error.message).toContain("404 page not found")
    })
  )

  it.scopedLive("400 is bad_request carrying Ollama's message", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "error", status: 400, message: "registry.ollama.ai/library/qwen3:8b does not support tools" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "bad_request", status: 400 })
      expect(error.message).toBe("ollama rejected the request (HTTP 400: registry.ollama.ai/library/qwen3:8b does not support tools)")
    })
  )

  it.scopedLive("429 is rate_limited with the server's retry-after", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "error", status: 429, headers: { "retry-after": "3" } }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryAfterMs: 3000 })
    })
  )

  const statusCases: ReadonlyArray<readonly [number, string]> = [
    [401, "auth"],
    [403, "permission"],
    [500, "server"],
    [502, "server"],
    [503, "server"]
  ]
  for (const [status, kind] of statusCases) {
    it.scopedLive(`${status} is ${kind}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* setup()
        fake.script([{ kind: "error", status }])
        const error = yield* collectFailure(client.stream(requestFor(model)))
        expect(error).toMatchObject({ kind, status })
      })
    )
  }

  it.scopedLive("a plain-text error body is the message, and the SDK prints nothing", () =>
    Effect.gen(function* () {
      const spies = watchConsole()
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "error", status: 500, body: "runner crashed" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.message).toBe("ollama had a server error (HTTP 500: runner crashed)")
      for (const spy of spies) expect(spy).not.toHaveBeenCalled()
    })
  )

  it.scopedLive("a provider that names a key variable fails with auth when it is unset, without a request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup({ apiKeyEnv: [keyEnv] })
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("auth")
      expect(error.message).toBe(`no API key for ollama: set ${keyEnv}`)
      expect(fake.requests).toHaveLength(0)
    })
  )

  it.scopedLive("a refused connection is network, names the URL and suggests `ollama serve`", () =>
    Effect.gen(function* () {
      const closed = yield* Effect.promise(() => startFakeLlm())
      yield* Effect.promise(() => closed.close())
      const model = ollamaModel(closed.url)
      const error = yield* collectFailure(makeOllamaClient(model, {}).stream(requestFor(model)))
      expect(error.kind).toBe("network")
      expect(error.message).toMatch(new RegExp(`^could not reach ollama at ${closed.url} \\(.*ECONNREFUSED.*\\)`))
      expect(error.message).toContain("`ollama serve`")
    })
  )

  it.scopedLive("a socket destroyed mid-stream is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ text: "abcdef", cutAfterChunks: 2 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
      expect(error.message).toBe("the response stream from ollama ended before the model finished")
    })
  )

  it.scopedLive("a stream that ends without the done object is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ text: "half an answ", finishReason: null }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
    })
  )

  it.scopedLive("a stream that ends in the middle of a line is stream_cut, quietly", () =>
    Effect.gen(function* () {
      const spies = watchConsole()
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "raw", headers: ndjson, chunks: [textLine("abc"), '{"model":"qwen3:8b","created_at":"t","mess'] }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
      for (const spy of spies) expect(spy).not.toHaveBeenCalled()
    })
  )

  it.scopedLive("an error line inside the stream is a server error with Ollama's words", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([
        { kind: "raw", headers: ndjson, chunks: [textLine("partial"), line({ error: "an error was encountered while running the model: unexpected EOF" })] }
      ])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("server")
      expect(error.message).toBe(
        "ollama reported an error during the response: an error was encountered while running the model: unexpected EOF"
      )
    })
  )

  it.scopedLive("an error line about the context size is context_too_long", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "raw", headers: ndjson, chunks: [line({ error: "input length exceeds the context length" })] }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("context_too_long")
    })
  )
})
