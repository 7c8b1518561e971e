import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import { makeDeepSeekClient } from "../../../src/providers/deepseek.ts"
import { fakeLlm, keyEnv, requestFor } from "./fixtures.ts"

const setup = Effect.map(fakeLlm, (fake) => {
  const model: ModelEntry = {
    ref: "deepseek/deepseek-v4-flash",
    id: "deepseek-v4-flash",
    provider: { name: "deepseek", protocol: "deepseek", baseURL: `${fake.url}/deepseek`, apiKeyEnv: [keyEnv], headers: {} },
    capabilities: { contextWindow: 131_072, maxOutputTokens: 8_192, imageInput: false, reasoning: true },
    listed: true
  }
  return { fake, model, client: makeDeepSeekClient(model, { [keyEnv]: "sk-deepseek" }) }
})

const reasoningChunk = (text: string) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: null, reasoning_content: text }, finish_reason: null }] })}\n\n`

/** Generous for a loaded CI machine, yet far below the seconds the server would keep going. */
// The scripted model would take 10 s; closing within 2 s proves the abort without tripping over a loaded machine
// (the first abort in a vitest process also pays for mapping its stack through the SDK source maps).
const promptlyMs = 2_000

describe("deepseek adapter: interruption", () => {
  it.scopedLive("interrupting mid-reasoning closes the connection at once", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([
        {
          kind: "raw",
          headers: { "content-type": "text/event-stream" },
          chunks: [reasoningChunk("first thought"), reasoningChunk("second thought")],
          chunkDelayMs: 10_000
        }
      ])
      const firstThought = yield* Deferred.make<void>()
      const fiber = yield* client.stream(requestFor(model)).pipe(
        Stream.runForEach((event) => (event.type === "reasoning_delta" ? Deferred.succeed(firstThought, undefined) : Effect.void)),
        Effect.fork
      )
      yield* Deferred.await(firstThought)
      const started = Date.now()
      yield* Fiber.interrupt(fiber)
      const request = yield* Effect.promise(() => fake.waitForRequest(1))
      const closed = yield* Effect.promise(() => request.closed)
      expect(closed.beforeReplyFinished).toBe(true)
      expect(closed.at - started).toBeLessThan(promptlyMs)
    })
  )

  it.scopedLive("interrupting before the response starts aborts the request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([{ text: "late", delayMs: 10_000 }])
      const fiber = yield* client.stream(requestFor(model)).pipe(Stream.runDrain, Effect.fork)
      const request = yield* Effect.promise(() => fake.waitForRequest(1, { timeoutMs: 5_000 }))
      const started = Date.now()
      yield* Fiber.interrupt(fiber)
      const closed = yield* Effect.promise(() => request.closed)
      expect(closed.beforeReplyFinished).toBe(true)
      expect(closed.at - started).toBeLessThan(promptlyMs)
    })
  )
})
