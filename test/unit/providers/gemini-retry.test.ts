import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import { retryStream, type RetryInfo } from "../../../src/providers/retry.ts"
import { requestFor } from "./fixtures.ts"
import { geminiSetup } from "./gemini-fixtures.ts"

const texts = (events: ReadonlyArray<ModelEvent>) =>
  events.flatMap((event) => (event.type === "text_delta" ? [event.text] : [])).join("")

describe("gemini adapter with retries", () => {
  it.scopedLive("429 with a RetryInfo delay, then success: exactly two requests, the delay honoured", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 429, headers: { "retry-after-ms": "40" } }, { text: "made it" }])
      const seen: Array<RetryInfo> = []
      const events = yield* Stream.runCollect(
        retryStream(() => client.stream(requestFor(model)), {
          baseDelayMs: 1,
          onRetry: (info) => Effect.sync(() => void seen.push(info))
        })
      )
      expect(texts(Chunk.toReadonlyArray(events))).toBe("made it")
      expect(seen.map(({ attempt, delayMs, error }) => ({ attempt, delayMs, kind: error.kind }))).toEqual([
        { attempt: 1, delayMs: 40, kind: "rate_limited" }
      ])
      const [first, second] = fake.requests
      expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(39)
    })
  )

  it.scopedLive("the SDK itself never retries", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* geminiSetup()
      fake.script([{ kind: "error", status: 503 }, { text: "never asked" }])
      const error = yield* Effect.flip(Stream.runDrain(client.stream(requestFor(model))))
      expect(error.kind).toBe("overloaded")
      expect(fake.requests).toHaveLength(1)
    })
  )
})
