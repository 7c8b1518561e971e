import { describe, expect, it } from "@effect/vitest"
import {
  isContextTooLong,
  messageFromErrorBody,
  providerErrorFromHttp,
  retryAfterMs
} from "../../../src/providers/http-errors.ts"
import { chatModel } from "./fixtures.ts"

const headers = (values: Record<string, string>) => new Headers(values)
const now = Date.parse("2025-01-01T00:00:00Z")

describe("retryAfterMs", () => {
  const cases: ReadonlyArray<readonly [string, Record<string, string>, number | undefined]> = [
    ["milliseconds", { "retry-after-ms": "250" }, 250],
    ["fractional seconds", { "retry-after": "1.5" }, 1_500],
    ["an HTTP date", { "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }, 30_000],
    ["an HTTP date in the past", { "retry-after": "Tue, 31 Dec 2024 23:00:00 GMT" }, 0],
    ["garbage", { "retry-after": "soon" }, undefined],
    ["a negative number", { "retry-after": "-3" }, undefined],
    ["garbage milliseconds, falling back to seconds", { "retry-after-ms": "x", "retry-after": "2" }, 2_000],
    ["nothing", {}, undefined]
  ]
  for (const [label, values, expected] of cases) {
    it(`reads ${label}`, () => expect(retryAfterMs(headers(values), now)).toBe(expected))
  }
})

describe("messageFromErrorBody", () => {
  it.each([
    [{ error: { message: "OpenAI style", type: "x" } }, "OpenAI style"],
    [{ type: "error", error: { type: "overloaded_error", message: "Anthropic style" } }, "Anthropic style"],
    [{ object: "error", message: "vLLM style", code: 400 }, "vLLM style"],
    [{ error: "LM Studio style" }, "LM Studio style"],
    ["plain text", "plain text"],
    [{ detail: "unknown shape" }, undefined],
    [undefined, undefined]
  ])("reads %j", (body, expected) => expect(messageFromErrorBody(body)).toBe(expected))
})

describe("isContextTooLong", () => {
  it.each([
    [{ code: "context_length_exceeded" }, true],
    [{ message: "prompt is too long: 210000 tokens > 200000 maximum" }, true],
    [{ message: "This model's maximum context length is 8192 tokens" }, true],
    [{ message: "the request exceeds the available context size, try increasing it" }, true],
    [{ message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)." }, true],
    [{ message: "max_tokens is too large" }, false]
  ])("%j → %s", (failure, expected) => expect(isContextTooLong(failure)).toBe(expected))
})

describe("providerErrorFromHttp", () => {
  it("tells a keyless provider's operator where to configure a key", () => {
    const error = providerErrorFromHttp(chatModel("http://127.0.0.1:8080/v1", { apiKeyEnv: [] }), { status: 401 })
    expect(error.kind).toBe("auth")
    expect(error.message).toBe(
      'local rejected the API key (HTTP 401: no details given); the server at http://127.0.0.1:8080/v1 wants an API key: set "apiKeyEnv" for provider "local" in config.json'
    )
  })

  it("names every variable the key may come from", () => {
    const model = chatModel("https://example.test", { apiKeyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"] })
    expect(providerErrorFromHttp(model, { status: 401, message: "bad key" }).message).toContain(
      "check GEMINI_API_KEY or GOOGLE_API_KEY"
    )
  })

  it("carries retry-after on server errors too", () => {
    const error = providerErrorFromHttp(chatModel("https://example.test"), {
      status: 503,
      headers: headers({ "retry-after": "3" })
    })
    expect(error).toMatchObject({ kind: "server", status: 503, retryAfterMs: 3_000 })
  })
})

describe("quota exhaustion", () => {
  it("is a permission error, not a retryable rate limit", async () => {
    const { providerErrorFromHttp } = await import("../../../src/providers/http-errors.ts")
    const { isRetryable } = await import("../../../src/providers/errors.ts")
    const model = {
      ref: "openai/gpt-5.1",
      id: "gpt-5.1",
      provider: { name: "openai", protocol: "openai-responses", baseURL: "https://api.openai.com/v1", apiKeyEnv: ["OPENAI_API_KEY"], headers: {} },
      capabilities: { contextWindow: 1, maxOutputTokens: 1, imageInput: false, reasoning: false },
      listed: false
    } as const
    const error = providerErrorFromHttp(model, { status: 429, code: "insufficient_quota", message: "You exceeded your current quota" })
    expect(error.kind).toBe("permission")
    expect(isRetryable(error)).toBe(false)
    expect(error.message).toMatch(/no quota or credit left/)
  })
})
