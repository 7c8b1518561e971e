import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import { makeDeepSeekClient } from "../../../src/providers/deepseek.ts"
import { startFakeLlm } from "../../support/fake-llm/server.ts"
import { collectFailure, fakeLlm, keyEnv, requestFor } from "./fixtures.ts"

const deepseekModel = (baseURL: string): ModelEntry => ({
  ref: "deepseek/deepseek-v4-flash",
  id: "deepseek-v4-flash",
  provider: { name: "deepseek", protocol: "deepseek", baseURL, apiKeyEnv: [keyEnv], headers: {} },
  capabilities: { contextWindow: 131_072, maxOutputTokens: 8_192, imageInput: false, reasoning: false },
  listed: true
})

const setup = (env: Record<string, string> = { [keyEnv]: "sk-deepseek" }) =>
  Effect.map(fakeLlm, (fake) => {
    const model = deepseekModel(`${fake.url}/deepseek`)
    return { fake, model, client: makeDeepSeekClient(model, env) }
  })

describe("deepseek adapter: errors", () => {
  it.scopedLive("fails with auth naming the variable when the key is not set, without a request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup({})
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "auth", message: `no API key for deepseek: set ${keyEnv}` })
      expect(fake.requests).toHaveLength(0)
    })
  )

  it.scopedLive("402 Insufficient Balance says the balance is used up and where to top up", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "error", status: 402 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "permission", status: 402, provider: "deepseek" })
      expect(error.message).toBe(
        "deepseek refused the request because the account balance is used up (HTTP 402: Insufficient Balance); " +
          "top up at https://platform.deepseek.com/top_up"
      )
    })
  )

  it.scopedLive("401 is auth and names the variable to check", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "error", status: 401 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "auth", status: 401 })
      expect(error.message).toContain("Authentication Fails")
      expect(error.message).toContain(`check ${keyEnv}`)
    })
  )

  it.scopedLive("503 Server Overloaded is overloaded, with retry-after", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "error", status: 503, headers: { "retry-after": "2" } }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error).toMatchObject({ kind: "overloaded", status: 503, retryAfterMs: 2000 })
      expect(error.message).toBe("deepseek is overloaded (HTTP 503: Server Overloaded)")
    })
  )

  const statusCases: ReadonlyArray<readonly [number, string]> = [
    [400, "bad_request"],
    [404, "not_found"],
    [422, "bad_request"],
    [429, "rate_limited"],
    [500, "server"]
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

  it.scopedLive("the missing reasoning_content 400 is bad_request with DeepSeek's words", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      const message = "The `reasoning_content` in the thinking mode must be passed back to the API."
      fake.script([{ kind: "error", status: 400, message }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.message).toBe(`deepseek rejected the request (HTTP 400: ${message})`)
    })
  )

  it.scopedLive("a context length 400 is context_too_long", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ kind: "error", status: 400, code: "context_length_exceeded" }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("context_too_long")
      expect(error.message).toContain("maximum context length is 131072 tokens")
    })
  )

  it.scopedLive("a refused connection is network and names the URL", () =>
    Effect.gen(function* () {
      const closed = yield* Effect.promise(() => startFakeLlm())
      yield* Effect.promise(() => closed.close())
      const model = deepseekModel(`${closed.url}/deepseek`)
      const error = yield* collectFailure(makeDeepSeekClient(model, { [keyEnv]: "sk" }).stream(requestFor(model)))
      expect(error.kind).toBe("network")
      expect(error.message).toContain(`could not reach deepseek at ${closed.url}/deepseek`)
    })
  )

  it.scopedLive("a socket destroyed mid-stream is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ reasoning: "thinking hard", text: "abcdef", cutAfterChunks: 3 }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
    })
  )

  it.scopedLive("a stream that ends without a finish reason is stream_cut", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup()
      fake.script([{ text: "half", finishReason: null }])
      const error = yield* collectFailure(client.stream(requestFor(model)))
      expect(error.kind).toBe("stream_cut")
    })
  )
})
