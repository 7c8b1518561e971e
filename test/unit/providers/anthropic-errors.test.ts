import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { makeAnthropicClient } from "../../../src/providers/anthropic.ts"
import { anthropicEvent } from "../../support/fake-llm/anthropic.ts"
import { startFakeLlm } from "../../support/fake-llm/server.ts"
import { anthropicModel, anthropicSetup, messageStart, sseHeaders } from "./anthropic-fixtures.ts"
import { collectFailure, keyEnv, requestFor } from "./fixtures.ts"

const errorEvent = (type: string, message: string) => anthropicEvent("error", { error: { type, message } })

describe("anthropic adapter: errors", () => {
  it.scopedLive("fails with auth naming the variable when the key is not set, without a request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup({ env: {} })
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("auth")
      expect(error.message).toBe(`no API key for claude: set ${keyEnv}`)
      expect(fake.requests).toHaveLength(0)
    })
  )

  it.scopedLive("401 is auth and names the variable to check", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ kind: "error", status: 401 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "auth", status: 401, provider: "claude" })
      expect(error.message).toBe(`claude rejected the API key (HTTP 401: invalid x-api-key); check ${keyEnv}`)
    })
  )

  it.scopedLive("403 is permission", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ kind: "error", status: 403 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "permission", status: 403 })
      expect(error.message).toContain("'test-claude'")
    })
  )

  it.scopedLive("404 is not_found and names the model and the base URL", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ kind: "error", status: 404 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("not_found")
      expect(error.message).toBe(`claude has no model 'test-claude' at ${fake.url} (HTTP 404: model: test-claude); check the model name`)
    })
  )

  it.scopedLive("429 is rate_limited with the server's retry-after", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ kind: "error", status: 429, headers: { "retry-after": "3" } }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryAfterMs: 3000 })
      expect(error.message).toContain("would exceed the rate limit")
    })
  )

  it.scopedLive("429 for a spending limit is not worth a retry", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([
        {
          kind: "error",
          status: 429,
          code: "enforced_spend_limit_reached",
          message: "You have reached your specified API usage limits.",
          headers: { "retry-after": "3600" }
        }
      ])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "permission", status: 429 })
      expect(error.message).toBe(
        "claude refused the request: a spending limit is reached (HTTP 429: You have reached your specified API usage limits.)"
      )
    })
  )

  const statusCases: ReadonlyArray<readonly [number, string]> = [
    [529, "overloaded"],
    [500, "server"],
    [504, "server"],
    [413, "bad_request"],
    [402, "bad_request"]
  ]
  for (const [status, kind] of statusCases) {
    it.scopedLive(`${status} is ${kind}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* anthropicSetup()
        fake.script([{ kind: "error", status }])
        const error = yield* collectFailure(client.stream(requestFor(model)))
        expect(error).toMatchObject({ kind, status })
      })
    )
  }

  it.scopedLive("529 says the provider is overloaded, in its own words", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ kind: "error", status: 529 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.message).toBe("claude is overloaded (HTTP 529: Overloaded)")
    })
  )

  it.scopedLive("400 'prompt is too long' is context_too_long", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ kind: "error", status: 400, code: "context_length_exceeded" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("context_too_long")
      expect(error.message).toContain("prompt is too long: 208310 tokens > 200000 maximum")
    })
  )

  it.scopedLive("other 400s are bad_request carrying the provider's message", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ kind: "error", status: 400, message: "tools.0.input_schema: JSON schema is invalid" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "bad_request", status: 400 })
      expect(error.message).toBe("claude rejected the request (HTTP 400: tools.0.input_schema: JSON schema is invalid)")
    })
  )

  it.scopedLive("an error body that is not JSON still reaches the operator", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ kind: "error", status: 502, body: "<html>Bad Gateway</html>" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "server", status: 502 })
      expect(error.message).toContain("Bad Gateway")
    })
  )

  it.scopedLive("a refused connection is network and names the URL", () =>
    Effect.gen(function* () {
      const closed = yield* Effect.promise(() => startFakeLlm())
      yield* Effect.promise(() => closed.close())
      const model = anthropicModel(closed.url)
      const client = makeAnthropicClient(model, { [keyEnv]: "sk-ant-test" })
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("network")
      expect(error.message).toContain(`could not reach claude at ${closed.url}`)
    })
  )

  it.scopedLive("a base URL that is not set fails before any request", () =>
    Effect.gen(function* () {
      const model = anthropicModel("")
      const error = yield* collectFailure(makeAnthropicClient(model, { [keyEnv]: "k" }).stream(requestFor(model)))
      expect(error.kind).toBe("bad_request")
      expect(error.message).toContain(`provider "claude" has no base URL`)
    })
  )

  it.scopedLive("a socket destroyed mid-stream is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ text: "abcdef", cutAfterChunks: 4 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
      expect(error.message).toBe("the response stream from claude ended before the model finished")
    })
  )

  it.scopedLive("a stream that ends without message_stop is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ text: "half an answ", finishReason: null }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
    })
  )

  const streamErrorCases: ReadonlyArray<readonly [string, string, string]> = [
    ["overloaded_error", "Overloaded", "overloaded"],
    ["api_error", "Internal server error", "server"],
    ["rate_limit_error", "Too many tokens", "rate_limited"],
    ["invalid_request_error", "prompt is too long: 300000 tokens > 200000 maximum", "context_too_long"],
    ["some_future_error", "what is this", "server"]
  ]
  for (const [type, message, kind] of streamErrorCases) {
    it.scopedLive(`an error event ${type} inside the stream is ${kind}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* anthropicSetup()
        fake.script([{ kind: "raw", headers: sseHeaders, chunks: [messageStart(), errorEvent(type, message)] }])
        const error = yield* collectFailure(client.stream(requestFor(model)))
        expect(error.kind).toBe(kind)
        expect(error.status).toBeUndefined()
        expect(error.message).toBe(`claude reported ${type} during the response: ${message}`)
      })
    )
  }

  it.scopedLive("an event that is not JSON is a server error", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ kind: "raw", headers: sseHeaders, chunks: [messageStart(), "event: content_block_start\ndata: {not json\n\n"] }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("server")
      expect(error.message).toContain("not valid JSON")
    })
  )

  it.scopedLive("reports an exhausted script as a server error", () =>
    Effect.gen(function* () {
      const { model, client } = yield* anthropicSetup()
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("server")
      expect(error.message).toContain("fake-llm: no scripted reply left")
    })
  )

  it.scopedLive("a stream that succeeds after an error is independent of it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* anthropicSetup()
      fake.script([{ kind: "error", status: 500 }, { text: "fine" }])
      yield* collectFailure(client.stream(requestFor(model)))
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests).toHaveLength(2)
    })
  )
})
