import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import { retryStream, type RetryInfo } from "../../../src/providers/retry.ts"
import { chatSetup, requestFor, type ChatSetup } from "./fixtures.ts"

/** Millisecond backoff so the real-time tests stay fast. */
const retried = ({ model, client }: ChatSetup, seen: Array<RetryInfo> = []) =>
  retryStream(() => client.stream(requestFor(model)), {
    baseDelayMs: 1,
    onRetry: (info) => Effect.sync(() => void seen.push(info))
  })

const texts = (events: ReadonlyArray<ModelEvent>) =>
  events.flatMap((event) => (event.type === "text_delta" ? [event.text] : [])).join("")

describe("openai-chat adapter with retries", () => {
  it.scopedLive("429 with retry-after-ms, then success: exactly two requests", () =>
    Effect.gen(function* () {
      const setup = yield* chatSetup()
      setup.fake.script([{ kind: "error", status: 429, headers: { "retry-after-ms": "20" } }, { text: "made it" }])
      const seen: Array<RetryInfo> = []
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(retried(setup, seen)))
      expect(texts(events)).toBe("made it")
      expect(setup.fake.requests).toHaveLength(2)
      expect(seen.map(({ attempt, maxAttempts, delayMs, error }) => ({ attempt, maxAttempts, delayMs, kind: error.kind }))).toEqual([
        { attempt: 1, maxAttempts: 4, delayMs: 20, kind: "rate_limited" }
      ])
      const [first, second] = setup.fake.requests
      expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(19)
    })
  )

  it.scopedLive("gives up after four 500s", () =>
    Effect.gen(function* () {
      const setup = yield* chatSetup()
      setup.fake.script([500, 500, 500, 500, 500].map((status) => ({ kind: "error" as const, status })))
      const seen: Array<RetryInfo> = []
      const error = yield* Effect.flip(Stream.runDrain(retried(setup, seen)))
      expect(error).toMatchObject({ kind: "server", status: 500 })
      expect(setup.fake.requests).toHaveLength(4)
      expect(seen.map((info) => info.attempt)).toEqual([1, 2, 3])
    })
  )

  it.scopedLive("does not retry a 400", () =>
    Effect.gen(function* () {
      const setup = yield* chatSetup()
      setup.fake.script([{ kind: "error", status: 400 }, { text: "never asked" }])
      const error = yield* Effect.flip(Stream.runDrain(retried(setup)))
      expect(error.kind).toBe("bad_request")
      expect(setup.fake.requests).toHaveLength(1)
    })
  )

  it.scopedLive("does not retry once an event has been emitted", () =>
    Effect.gen(function* () {
      const setup = yield* chatSetup()
      setup.fake.script([
        {
          kind: "raw",
          headers: { "content-type": "text/event-stream" },
          chunks: [
            `data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: "assistant", content: "Half" }, finish_reason: null }] })}\n\n`,
            `data: ${JSON.stringify({ error: { message: "overloaded mid-answer", type: "server_error" } })}\n\n`
          ]
        },
        { text: "would repeat" }
      ])
      const emitted: Array<ModelEvent> = []
      const error = yield* Effect.flip(Stream.runForEach(retried(setup), (event) => Effect.sync(() => void emitted.push(event))))
      expect(error.kind).toBe("server")
      expect(texts(emitted)).toBe("Half")
      expect(setup.fake.requests).toHaveLength(1)
    })
  )
})
