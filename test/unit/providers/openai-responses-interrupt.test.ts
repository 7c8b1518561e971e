import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { requestFor } from "./fixtures.ts"
import { responsesFrame, responsesSetup, sseHeaders } from "./openai-responses-setup.ts"

const message = { id: "msg_1", type: "message", status: "in_progress", content: [], role: "assistant" }
const textDelta = (delta: string, sequence: number) =>
  responsesFrame({
    type: "response.output_text.delta",
    sequence_number: sequence,
    item_id: "msg_1",
    output_index: 0,
    content_index: 0,
    delta,
    logprobs: []
  })

/** Generous for a loaded CI machine, yet far below the seconds the server would keep going. */
// The scripted model would take 10 s; closing within 2 s proves the abort without tripping over a loaded machine
// (the first abort in a vitest process also pays for mapping its stack through the SDK source maps).
const promptlyMs = 2_000

describe("openai-responses adapter: interruption", () => {
  it.scopedLive("interrupting mid-stream closes the connection at once", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
      fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          // The first chunk holds several events, up to the first text; the next comes 10 s later.
          chunks: [
            [
              responsesFrame({ type: "response.created", sequence_number: 0, response: { id: "resp_1", status: "in_progress", output: [] } }),
              responsesFrame({ type: "response.output_item.added", sequence_number: 1, output_index: 0, item: message }),
              textDelta("first", 2)
            ].join(""),
            textDelta("second", 3)
          ],
          chunkDelayMs: 10_000
        }
      ])
      const firstText = yield* Deferred.make<void>()
      const fiber = yield* client.stream(requestFor(model)).pipe(
        Stream.runForEach((event) => (event.type === "text_delta" ? Deferred.succeed(firstText, undefined) : Effect.void)),
        Effect.fork
      )
      yield* Deferred.await(firstText)
      const request = yield* Effect.promise(() => fake.waitForRequest(1))
      const started = Date.now()
      yield* Fiber.interrupt(fiber)
      const closed = yield* Effect.promise(() => request.closed)
      expect(closed.beforeReplyFinished).toBe(true)
      expect(closed.at - started).toBeLessThan(promptlyMs)
    })
  )

  it.scopedLive("interrupting while the model thinks aborts the request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* responsesSetup()
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
