import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import { makeOpenAIResponsesClient } from "../../../src/providers/openai-responses.ts"
import { startFakeLlm } from "../../support/fake-llm/server.ts"
import { retryStream } from "../../../src/providers/retry.ts"
import { collect, collectFailure, keyEnv, requestFor } from "./fixtures.ts"
import { responsesFrame, responsesModel, responsesSetup, sseHeaders } from "./openai-responses-setup.ts"

const created = responsesFrame({
  type: "response.created",
  sequence_number: 0,
  response: { id: "resp_raw", object: "response", status: "in_progress", output: [], usage: null }
})

/** An error event as api.openai.com sends it: the details nested under `error`. */
const nestedErrorEvent = (error: { type: string; code: string | null; message: string }) =>
  responsesFrame({ type: "error", sequence_number: 2, error: { ...error, param: null } })

const failedEvent = (error: { code: string; message: string } | null) =>
  responsesFrame({
    type: "response.failed",
    sequence_number: 3,
    response: { id: "resp_raw", object: "response", status: "failed", error, output: [], usage: null }
  })

describe("openai-responses adapter: errors", () => {
  it.scopedLive("fails with auth naming the variable when the key is not set, without a request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup({ env: {} })
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("auth")
      expect(error.message).toBe(`no API key for openai: set ${keyEnv}`)
      expect(fake.requests).toHaveLength(0)
    })
  )

  it.scopedLive("401 is auth and names the variable to check", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ kind: "error", status: 401 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "auth", status: 401, provider: "openai" })
      expect(error.message).toContain("Incorrect API key provided")
      expect(error.message).toContain(`check ${keyEnv}`)
    })
  )

  it.scopedLive("403 is permission", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ kind: "error", status: 403 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "permission", status: 403 })
    })
  )

  it.scopedLive("404 is not_found and names the model", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ kind: "error", status: 404 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("not_found")
      expect(error.message).toContain(`openai has no model 'gpt-test' at ${fake.url}/v1`)
    })
  )

  it.scopedLive("429 is rate_limited with the server's retry-after", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ kind: "error", status: 429, headers: { "retry-after-ms": "150" } }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryAfterMs: 150 })
      expect(error.message).toContain("Rate limit reached for gpt-test")
    })
  )

  const statusCases: ReadonlyArray<readonly [number, string]> = [
    [500, "server"],
    [503, "server"],
    [529, "overloaded"],
    [422, "bad_request"]
  ]
  for (const [status, kind] of statusCases) {
    it.scopedLive(`${status} is ${kind}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* responsesSetup()
        fake.script([{ kind: "error", status }])
        const error = yield* collectFailure(client.stream(requestFor(model)))
        expect(error).toMatchObject({ kind, status })
      })
    )
  }

  it.scopedLive("400 context_length_exceeded is context_too_long", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ kind: "error", status: 400, code: "context_length_exceeded" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("context_too_long")
      expect(error.message).toContain("Your input exceeds the context window of this model")
    })
  )

  it.scopedLive("other 400s are bad_request carrying the provider's message", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ kind: "error", status: 400, message: "Encrypted content is not supported with this model.", param: "include" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "bad_request", status: 400 })
      expect(error.message).toBe("openai rejected the request (HTTP 400: Encrypted content is not supported with this model.)")
    })
  )

  it.scopedLive("a refused connection is network and names the URL", () =>
    Effect.gen(function* () {
      const closed = yield* Effect.promise(() => startFakeLlm())
      yield* Effect.promise(() => closed.close())
      const model = responsesModel(`${closed.url}/v1`)
      const client = makeOpenAIResponsesClient(model, { [keyEnv]: "sk-test" })
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("network")
      expect(error.message).toContain(`could not reach openai at ${closed.url}/v1`)
    })
  )

  it.scopedLive("a socket destroyed mid-stream is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ text: "abcdef", cutAfterChunks: 5 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
      expect(error.message).toBe("the response stream from openai ended before the model finished")
    })
  )

  it.scopedLive("a stream that ends without response.completed is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ text: "half an answ", finishReason: null }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
    })
  )

  it.scopedLive("an error event is rate_limited when it says so, waiting as long as its message asks", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            created,
            nestedErrorEvent({
              type: "tokens",
              code: "rate_limit_exceeded",
              message: "Rate limit reached for gpt-test on tokens per min (TPM). Please try again in 6.57s. Visit the docs."
            }),
            failedEvent({ code: "rate_limit_exceeded", message: "Rate limit reached" })
          ]
        }
      ])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "rate_limited", retryAfterMs: 6570 })
      expect(error.message).toContain("Rate limit reached for gpt-test")
    })
  )

  it.scopedLive("a rate-limit error event before any output is retried", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            created,
            nestedErrorEvent({ type: "tokens", code: "rate_limit_exceeded", message: "Rate limit reached. Please try again in 20ms." })
          ]
        },
        { text: ["made it"] }
      ])
      const events: ReadonlyArray<ModelEvent> = yield* collect(retryStream(() => client.stream(requestFor(model))))
      expect(events[0]).toEqual({ type: "text_delta", text: "made it" })
      expect(fake.requests).toHaveLength(2)
    })
  )

  it.scopedLive("an error event for an exhausted quota is permission, not worth a retry", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            created,
            nestedErrorEvent({ type: "insufficient_quota", code: "insufficient_quota", message: "You exceeded your current quota." })
          ]
        }
      ])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("permission")
      expect(error.message).toContain("You exceeded your current quota.")
    })
  )

  it.scopedLive("an error event with its fields at the top level, as the API reference shows it, is reported too", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            created,
            responsesFrame({ type: "error", sequence_number: 2, code: "server_error", message: "upstream model crashed", param: null })
          ]
        }
      ])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "server", message: "openai reported an error during the response: upstream model crashed" })
    })
  )

  const failedCases: ReadonlyArray<readonly [{ code: string; message: string } | null, string]> = [
    [{ code: "server_error", message: "The model crashed." }, "server"],
    [{ code: "invalid_prompt", message: "Invalid prompt: flagged." }, "bad_request"],
    [{ code: "invalid_base64_image", message: "Invalid base64 image." }, "bad_request"],
    [null, "server"]
  ]
  for (const [failure, kind] of failedCases) {
    it.scopedLive(`response.failed with ${failure?.code ?? "no error"} is ${kind}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* responsesSetup()
        fake.script([{ kind: "raw", headers: sseHeaders, chunks: [created, failedEvent(failure)] }])
        const error = yield* collectFailure(client.stream(requestFor(model)))
        expect(error.kind).toBe(kind)
        if (failure !== null) expect(error.message).toContain(failure.message)
      })
    )
  }

  it.scopedLive("reports an exhausted script as a server error", () =>
    Effect.gen(function* () {
      const { model, client } = yield* responsesSetup()
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("server")
      expect(error.message).toContain("fake-llm: no scripted reply left")
    })
  )

  it.scopedLive("a stream that succeeds after an error is independent of it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([{ kind: "error", status: 500 }, { text: "fine" }])
      yield* collectFailure(client.stream(requestFor(model)))
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests).toHaveLength(2)
    })
  )
})
