/**
 * The interruption cases every adapter must pass: a stream interrupted after its first event, and
 * a request interrupted before its response starts, both close the connection at once.
 */
import { expect } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import type { ModelClientShape, ModelEvent } from "../../../src/providers/model-client.ts"
import type { FakeLlm } from "../../support/fake-llm/server.ts"
import type { RawReply } from "../../support/fake-llm/reply.ts"
import { requestFor } from "./fixtures.ts"

// The scripted model would take 10 s; closing within 2 s proves the abort without tripping over a loaded machine
// (the first abort in a vitest process also pays for mapping its stack through the SDK source maps).
const promptlyMs = 2_000

export interface AdapterUnderTest {
  readonly fake: FakeLlm
  readonly model: ModelEntry
  readonly client: ModelClientShape
}

/** The reply's first chunk arrives at once, the next 10 s later; interrupting after `firstEvent` must close the connection. */
export const interruptsMidStream = (adapter: AdapterUnderTest, reply: Omit<RawReply, "kind" | "chunkDelayMs">, firstEvent: ModelEvent["type"]) =>
  Effect.gen(function* () {
    const { fake, model, client } = adapter
    fake.script([{ kind: "raw", ...reply, chunkDelayMs: 10_000 }])
    const first = yield* Deferred.make<void>()
    const fiber = yield* client.stream(requestFor(model)).pipe(
      Stream.runForEach((event) => (event.type === firstEvent ? Deferred.succeed(first, undefined) : Effect.void)),
      Effect.fork
    )
    yield* Deferred.await(first)
    const started = Date.now()
    yield* Fiber.interrupt(fiber)
    const request = yield* Effect.promise(() => fake.waitForRequest(1))
    const closed = yield* Effect.promise(() => request.closed)
    expect(closed.beforeReplyFinished).toBe(true)
    expect(closed.at - started).toBeLessThan(promptlyMs)
  })

/** A reply that would start 10 s later: interrupting while waiting must abort the request. */
export const interruptsBeforeResponse = (adapter: AdapterUnderTest) =>
  Effect.gen(function* () {
    const { fake, model, client } = adapter
    fake.script([{ text: "late", delayMs: 10_000 }])
    const fiber = yield* client.stream(requestFor(model)).pipe(Stream.runDrain, Effect.fork)
    const request = yield* Effect.promise(() => fake.waitForRequest(1, { timeoutMs: 5_000 }))
    const started = Date.now()
    yield* Fiber.interrupt(fiber)
    const closed = yield* Effect.promise(() => request.closed)
    expect(closed.beforeReplyFinished).toBe(true)
    expect(closed.at - started).toBeLessThan(promptlyMs)
  })
