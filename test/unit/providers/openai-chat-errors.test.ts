import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { makeOpenAIChatClient } from "../../../src/providers/openai-chat.ts"
import { startFakeLlm } from "../../support/fake-llm/server.ts"
import { chatModel, chatSetup, collectFailure, keyEnv, requestFor } from "./fixtures.ts"

describe("openai-chat adapter: errors", () => {
  it.scopedLive("fails with auth naming the variable when the key is not set, without a request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup({}, {})
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("auth")
      expect(error.message).toBe(`no API key for local: set ${keyEnv}`)
      expect(fake.requests).toHaveLength(0)
    })
  )

  it.scopedLive("401 is auth and names the variable to check", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ kind: "error", status: 401 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "auth", status: 401, provider: "local" })
      expect(error.message).toContain("Incorrect API key provided")
      expect(error.message).toContain(`check ${keyEnv}`)
    })
  )

  it.scopedLive("403 is permission", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ kind: "error", status: 403 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "permission", status: 403 })
      expect(error.message).toContain("'test-model'")
    })
  )

  it.scopedLive("404 is not_found and names the model and the base URL", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ kind: "error", status: 404 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("not_found")
      expect(error.message).toContain(`local has no model 'test-model' at ${fake.url}/v1`)
      expect(error.message).toContain("The model `test-model` does not exist")
    })
  )

  const retryAfterCases: ReadonlyArray<readonly [string, Record<string, string>, number]> = [
    ["retry-after-ms", { "retry-after-ms": "150" }, 150],
    ["retry-after in seconds", { "retry-after": "2" }, 2000],
    ["retry-after-ms over retry-after", { "retry-after-ms": "40", "retry-after": "9" }, 40]
  ]
  for (const [label, headers, expected] of retryAfterCases) {
    it.scopedLive(`429 is rate_limited with ${label}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* chatSetup()
        fake.script([{ kind: "error", status: 429, headers }])
        const error = yield* collectFailure(client.stream(requestFor(model)))
        expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryAfterMs: expected })
        expect(error.message).toContain("Rate limit reached")
      })
    )
  }

  const statusCases: ReadonlyArray<readonly [number, string]> = [
    [529, "overloaded"],
    [500, "server"],
    [502, "server"],
    [503, "server"],
    [504, "server"],
    [422, "bad_request"]
  ]
  for (const [status, kind] of statusCases) {
    it.scopedLive(`${status} is ${kind}`, () =>
      Effect.gen(function* () {
        const { fake, model, client } = yield* chatSetup()
        fake.script([{ kind: "error", status }])
        const error = yield* collectFailure(client.stream(requestFor(model)))
        expect(error).toMatchObject({ kind, status })
      })
    )
  }

  it.scopedLive("400 context_length_exceeded is context_too_long", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ kind: "error", status: 400, code: "context_length_exceeded" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("context_too_long")
      expect(error.message).toContain("maximum context length is 128000 tokens")
    })
  )

  it.scopedLive("400 whose message says the prompt is too long is context_too_long", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ kind: "error", status: 400, body: { error: "the prompt is too long: 40000 tokens > 32768" } }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("context_too_long")
    })
  )

  it.scopedLive("other 400s are bad_request carrying the provider's message", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ kind: "error", status: 400, message: "Invalid schema for function 'edit'", param: "tools[0]" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "bad_request", status: 400 })
      expect(error.message).toBe("local rejected the request (HTTP 400: Invalid schema for function 'edit')")
    })
  )

  it.scopedLive("a refused connection is network and names the URL", () =>
    Effect.gen(function* () {
      const closed = yield* Effect.promise(() => startFakeLlm())
      yield* Effect.promise(() => closed.close())
      const model = chatModel(`${closed.url}/v1`)
      const client = makeOpenAIChatClient(model, { [keyEnv]: "sk-test" })
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("network")
      expect(error.message).toContain(`could not reach local at ${closed.url}/v1`)
    })
  )

  it.scopedLive("a socket destroyed mid-stream is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ text: "abcdef", cutAfterChunks: 2 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
      expect(error.message).toBe("the response stream from local ended before the model finished")
    })
  )

  it.scopedLive("a stream that ends without a finish reason is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ text: "half an answ", finishReason: null }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
    })
  )

  it.scopedLive("an error event inside the stream is a server error", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([
        {
          kind: "raw",
          headers: { "content-type": "text/event-stream" },
          chunks: [`data: ${JSON.stringify({ error: { message: "upstream model crashed", type: "server_error" } })}\n\n`]
        }
      ])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("server")
      expect(error.message).toContain("upstream model crashed")
    })
  )

  it.scopedLive("reports an exhausted script as a server error", () =>
    Effect.gen(function* () {
      const { model, client } = yield* chatSetup()
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("server")
      expect(error.message).toContain("fake-llm: no scripted reply left")
    })
  )

  it.scopedLive("a stream that succeeds after an error is independent of it", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* chatSetup()
      fake.script([{ kind: "error", status: 500 }, { text: "fine" }])
      yield* collectFailure(client.stream(requestFor(model)))
      yield* Stream.runDrain(client.stream(requestFor(model)))
      expect(fake.requests).toHaveLength(2)
    })
  )
})
