import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ModelEvent } from "../../../src/providers/model-client.ts"
import { retryStream, type RetryInfo } from "../../../src/providers/retry.ts"
import { anthropicEvent } from "../../support/fake-llm/anthropic.ts"
import { anthropicSetup, messageStart, sseHeaders, type AnthropicSetup } from "./anthropic-fixtures.ts"
import { requestFor } from "./fixtures.ts"

/** Millisecond backoff so the real-time tests stay fast. */
const retried = ({ model, client }: AnthropicSetup, seen: Array<RetryInfo> = []) =>
  retryStream(() => client.stream(requestFor(model)), {
    baseDelayMs: 1,
    onRetry: (info) => Effect.sync(() => void seen.push(info))
  })

const texts = (events: ReadonlyArray<ModelEvent>) =>
  events.flatMap((event) => (event.type === "text_delta" ? [event.text] : [])).join("")

const overloadedEvent = anthropicEvent("error", { error: { type: "overloaded_error", message: "Overloaded" } })

describe("anthropic adapter with retries", () => {
  it.scopedLive("529 overloaded, then success: exactly two requests", () =>
    Effect.gen(function* () {
      const setup = yield* anthropicSetup()
      setup.fake.script([{ kind: "error", status: 529 }, { text: "made it" }])
      const seen: Array<RetryInfo> = []
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(retried(setup, seen)))
      expect(texts(events)).toBe("made it")
      expect(setup.fake.requests).toHaveLength(2)
      expect(seen.map(({ attempt, error }) => ({ attempt, kind: error.kind, status: error.status }))).toEqual([
        { attempt: 1, kind: "overloaded", status: 529 }
      ])
    })
  )

  it.scopedLive("an overloaded_error event before any output is retried too", () =>
    Effect.gen(function* () {
      const setup = yield* anthropicSetup()
      setup.fake.script([{ kind: "raw", headers: sseHeaders, chunks: [messageStart(), overloadedEvent] }, { text: "second try" }])
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(retried(setup)))
      expect(texts(events)).toBe("second try")
      expect(setup.fake.requests).toHaveLength(2)
    })
  )

  it.scopedLive("does not retry once text has been emitted", () =>
    Effect.gen(function* () {
      const setup = yield* anthropicSetup()
      setup.fake.script([
        {
          kind: "raw",
          headers: sseHeaders,
          chunks: [
            messageStart(),
            anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
            anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Half" } }),
            overloadedEvent
          ]
        },
        { text: "would repeat" }
      ])
      const emitted: Array<ModelEvent> = []
      const error = yield* Effect.flip(Stream.runForEach(retried(setup), (event) => Effect.sync(() => void emitted.push(event))))
      expect(error.kind).toBe("overloaded")
      expect(texts(emitted)).toBe("Half")
      expect(setup.fake.requests).toHaveLength(1)
    })
  )

  it.scopedLive("does not retry a 400", () =>
    Effect.gen(function* () {
      const setup = yield* anthropicSetup()
      setup.fake.script([{ kind: "error", status: 400 }, { text: "never asked" }])
      const error = yield* Effect.flip(Stream.runDrain(retried(setup)))
      expect(error.kind).toBe("bad_request")
      expect(setup.fake.requests).toHaveLength(1)
    })
  )
})
