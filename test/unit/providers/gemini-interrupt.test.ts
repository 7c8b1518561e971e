import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { requestFor } from "./fixtures.ts"
import { geminiFrame, geminiSetup, sseHeaders } from "./gemini-fixtures.ts"

/** Generous for a loaded CI machine, yet far below the seconds the server would keep going. */
// The scripted model would take 10 s; closing within 2 s proves the abort without tripping over a loaded machine
// (the first abort in a vitest process also pays for mapping its stack through the SDK source maps).
const promptlyMs = 2_000

/**
 * Vitest maps every stack trace through source maps, and aborting makes Node build an AbortError
 * whose stack passes through the SDK: the first time, that loads the SDK's 900 KB source map, which
 * takes a second on a busy machine. That is the test runner's cost, not the adapter's: pay it first.
 */
const warmSdkSourceMap = async (): Promise<void> => {
  const { GoogleGenAI } = await import("@google/genai")
  const sdk = new GoogleGenAI({ vertexai: false, apiKey: "warm-up" })
  await sdk.models.generateContentStream({ model: "", contents: "x" }).catch((error: unknown) => String(error instanceof Error ? error.stack : error))
}

describe("gemini adapter: interruption", () => {
  beforeAll(warmSdkSourceMap)

  it.scopedLive("interrupting mid-stream closes the connection at once", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [geminiFrame([{ text: "first" }]), geminiFrame([{ text: "second" }], { finishReason: "STOP" })],
          chunkDelayMs: 10_000
        }
      ])
      const firstText = yield* Deferred.make<void>()
      const fiber = yield* client.stream(requestFor(model)).pipe(
        Stream.runForEach((event) => (event.type === "text_delta" ? Deferred.succeed(firstText, undefined) : Effect.void)),
        Effect.fork
      )
      yield* Deferred.await(firstText)
      const started = Date.now()
      yield* Fiber.interrupt(fiber)
      const request = yield* Effect.promise(() => fake.waitForRequest(1))
      const closed = yield* Effect.promise(() => request.closed)
      expect(closed.beforeReplyFinished).toBe(true)
      expect(closed.at - started).toBeLessThan(promptlyMs)
    })
  )

  it.scopedLive("interrupting while the model thinks aborts the request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
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
