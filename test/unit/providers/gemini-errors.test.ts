import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { makeGeminiClient } from "../../../src/providers/gemini.ts"
import { startFakeLlm } from "../../support/fake-llm/server.ts"
import { collectFailure, keyEnv, requestFor } from "./fixtures.ts"
import { geminiFrame, geminiModel, geminiSetup, sseHeaders } from "./gemini-fixtures.ts"

describe("gemini adapter: errors", () => {
  it.scopedLive("fails with auth naming the variables when no key is set, without a request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup({ provider: { apiKeyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"] }, env: {} })
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("auth")
      expect(error.message).toBe("no API key for gem: set GEMINI_API_KEY or GOOGLE_API_KEY")
      expect(fake.requests).toHaveLength(0)
    })
  )

  it.scopedLive("400 API_KEY_INVALID, Gemini's answer to a wrong key, is auth", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 400, code: "API_KEY_INVALID" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "auth", status: 400, provider: "gem" })
      expect(error.message).toBe(`gem rejected the API key (HTTP 400: API key not valid. Please pass a valid API key.); check ${keyEnv}`)
    })
  )

  it.scopedLive("401 is auth", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 401 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "auth", status: 401 })
      expect(error.message).toContain("invalid authentication credentials")
    })
  )

  it.scopedLive("403 is permission", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 403 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "permission", status: 403 })
      expect(error.message).toBe("gem denied access to model 'gemini-test' (HTTP 403: The caller does not have permission)")
    })
  )

  it.scopedLive("404 is not_found and names the model and the base URL", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 404 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("not_found")
      expect(error.message).toContain(`gem has no model 'gemini-test' at ${fake.url}`)
      expect(error.message).toContain("models/gemini-test is not found for API version v1beta")
    })
  )

  it.scopedLive("429 is rate_limited, waiting as long as Gemini's RetryInfo says", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 429, headers: { "retry-after-ms": "150" } }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryAfterMs: 150 })
      expect(error.message).toBe("gem rate limit reached (HTTP 429: Resource has been exhausted (e.g. check quota).)")
    })
  )

  it.scopedLive("429 without RetryInfo leaves the wait to the backoff", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 429 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("rate_limited")
      expect(error.retryAfterMs).toBeUndefined()
    })
  )

  const statusCases: ReadonlyArray<readonly [number, string]> = [
    [500, "server"],
    [503, "overloaded"],
    [504, "server"],
    [409, "bad_request"]
  ]
  for (const [status, kind] of statusCases) {
    it.scopedLive(`${status} is ${kind}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* geminiSetup()
        fake.script([{ kind: "error", status }])
        const error = yield* collectFailure(client.stream(requestFor(model)))
        expect(error).toMatchObject({ kind, status })
      })
    )
  }

  it.scopedLive("400 about the input token count is context_too_long", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 400, code: "context_length_exceeded" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("context_too_long")
      expect(error.message).toContain("exceeds the maximum number of tokens allowed (1048576)")
    })
  )

  it.scopedLive("other 400s are bad_request carrying Gemini's message", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 400, message: "* GenerateContentRequest.tools[0].function_declarations[0].name: Invalid function name." }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "bad_request", status: 400 })
      expect(error.message).toBe(
        "gem rejected the request (HTTP 400: * GenerateContentRequest.tools[0].function_declarations[0].name: Invalid function name.)"
      )
    })
  )

  it.scopedLive("a proxy's plain-text error keeps its text", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 502, body: "upstream connect error" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "server", status: 502 })
      expect(error.message).toBe("gem had a server error (HTTP 502: upstream connect error)")
    })
  )

  it.scopedLive("a refused connection is network and names the URL", () =>
    Effect.gen(function* () {
      const closed = yield* Effect.promise(() => startFakeLlm())
      yield* Effect.promise(() => closed.close())
      const model = geminiModel(closed.url)
      const error = yield* collectFailure(makeGeminiClient(model, { [keyEnv]: "k" }).stream(requestFor(model)))
      expect(error.kind).toBe("network")
      expect(error.message).toContain(`could not reach gem at ${closed.url}`)
    })
  )

  it.scopedLive("a socket destroyed mid-stream is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ text: "abcdef", cutAfterChunks: 2 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
      expect(error.message).toBe("the response stream from gem ended before the model finished")
    })
  )

  it.scopedLive("a stream that ends without a finish reason is stream_cut, and is not resumed", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ text: "half an answ", finishReason: null }, { text: "resumed" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
      expect(fake.requests).toHaveLength(1)
    })
  )

  it.scopedLive("an error inside the stream is mapped by its code", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            geminiFrame([{ text: "Half" }]),
            `data: ${JSON.stringify({ error: { code: 500, message: "upstream model crashed", status: "INTERNAL" } })}\r\n\r\n`
          ]
        }
      ])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "server", status: 500 })
      expect(error.message).toContain("upstream model crashed")
    })
  )

  it.scopedLive("a chunk that is not JSON is a server error", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "raw", headers: sseHeaders, chunks: ["data: {not json\r\n\r\n"] }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("server")
      expect(error.message).toContain("not valid JSON")
    })
  )

  it.scopedLive("reports an exhausted script as a server error", () =>
    Effect.gen(function* () {
      const { model, client } = yield* geminiSetup()
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("server")
      expect(error.message).toContain("fake-llm: no scripted reply left")
    })
  )

  it.scopedLive("a conversation with nothing for the model is bad_request, without a request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      const error = yield* collectFailure(client.stream(requestFor(model, { items: [{ _tag: "note", id: "n1", text: "just a note" }] })))
      expect(error.kind).toBe("bad_request")
      expect(fake.requests).toHaveLength(0)
    })
  )

  it.scopedLive("a stream that succeeds after an error is independent of it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 500 }, { text: "fine" }])
      yield* collectFailure(client.stream(requestFor(model)))
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests).toHaveLength(2)
    })
  )
})
