import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { ProviderError, type ProviderErrorKind } from "../../../src/providers/errors.ts"
import { retryDelayMs, retryStream, type RetryInfo } from "../../../src/providers/retry.ts"

const failure = (kind: ProviderErrorKind, retryAfterMs?: number) =>
  new ProviderError({ kind, message: kind, provider: "test", ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })

/** A stream factory that plays one outcome per attempt and counts the attempts. */
const attempts = (outcomes: ReadonlyArray<ProviderError | string>) => {
  let made = 0
  const make = () => {
    const outcome = outcomes[Math.min(made, outcomes.length - 1)]
    made++
    return typeof outcome === "string" ? Stream.make(outcome) : Stream.fail(outcome ?? failure("server"))
  }
  return { make, count: () => made }
}

describe("retryDelayMs", () => {
  it("uses the server's retry-after, capped at 60 s", () => {
    expect(retryDelayMs(1, failure("rate_limited", 1_500), 0.5)).toBe(1_500)
    expect(retryDelayMs(1, failure("rate_limited", 3_600_000), 0.5)).toBe(60_000)
  })

  it("backs off exponentially from 1 s with equal jitter", () => {
    const error = failure("server")
    expect([1, 2, 3].map((attempt) => retryDelayMs(attempt, error, 0))).toEqual([500, 1_000, 2_000])
    expect([1, 2, 3].map((attempt) => retryDelayMs(attempt, error, 0.999_999))).toEqual([1_000, 2_000, 4_000])
  })
})

describe("retryStream", () => {
  it.effect.each([
    [3_600_000, 60_000, "60 min", "60 s"],
    [36_000_000, 60_000, "10 h", "60 s"],
    [61_000, 60_000, "61 s", "60 s"],
    [600_000, 300_000, "10 min", "300 s"],
    [1_000, 0, "1 s", "0 s"]
  ] as const)("a retry-after of %i ms over a cap of %i ms fails at once, naming both", ([retryAfter, cap, wait, limit]) =>
    Effect.gen(function* () {
      const { make, count } = attempts([failure("rate_limited", retryAfter), "ok"])
      const seen: Array<RetryInfo> = []
      const error = yield* retryStream(make, { maxRetryAfterMs: cap, onRetry: (info) => Effect.sync(() => void seen.push(info)) }).pipe(
        Stream.runDrain,
        Effect.flip
      )
      expect(count()).toBe(1)
      expect(seen).toEqual([])
      expect(error.kind).toBe("rate_limited")
      expect(error.message).toBe(
        `rate_limited; the server asks to wait ${wait}, more than retry.maxWaitSeconds (${limit} in config.json): try again later or raise it`
      )
    })
  )

  it.effect("a retry-after within the cap is waited in full and announced with its length", () =>
    Effect.gen(function* () {
      const { make } = attempts([failure("rate_limited", 90_000), "ok"])
      const seen: Array<number> = []
      const fiber = yield* retryStream(make, { maxRetryAfterMs: 120_000, onRetry: (info) => Effect.sync(() => void seen.push(info.delayMs)) }).pipe(
        Stream.runCollect,
        Effect.fork
      )
      yield* TestClock.adjust(90_000)
      expect([...(yield* Fiber.join(fiber))]).toEqual(["ok"])
      expect(seen).toEqual([90_000])
    })
  )

  it.effect("waits the retry-after on the Clock, then tries again", () =>
    Effect.gen(function* () {
      const { make, count } = attempts([failure("rate_limited", 30_000), "ok"])
      const seen: Array<RetryInfo> = []
      const fiber = yield* retryStream(make, { onRetry: (info) => Effect.sync(() => void seen.push(info)) }).pipe(
        Stream.runCollect,
        Effect.fork
      )
      yield* TestClock.adjust(29_999)
      expect(count()).toBe(1)
      yield* TestClock.adjust(1)
      const result = yield* Fiber.join(fiber)
      expect([...result]).toEqual(["ok"])
      expect(count()).toBe(2)
      expect(seen).toEqual([{ attempt: 1, maxAttempts: 4, delayMs: 30_000, error: failure("rate_limited", 30_000) }])
    })
  )

  it.effect("makes at most four attempts, with growing delays", () =>
    Effect.gen(function* () {
      const { make, count } = attempts([failure("overloaded")])
      const delays: Array<number> = []
      const fiber = yield* retryStream(make, { onRetry: (info) => Effect.sync(() => void delays.push(info.delayMs)) }).pipe(
        Stream.runDrain,
        Effect.flip,
        Effect.fork
      )
      yield* TestClock.adjust(10_000)
      const error = yield* Fiber.join(fiber)
      expect(error.kind).toBe("overloaded")
      expect(count()).toBe(4)
      expect(delays).toHaveLength(3)
      const [first = 0, second = 0, third = 0] = delays
      expect(first).toBeGreaterThanOrEqual(500)
      expect(first).toBeLessThanOrEqual(1_000)
      expect(second).toBeGreaterThanOrEqual(1_000)
      expect(second).toBeLessThanOrEqual(2_000)
      expect(third).toBeGreaterThanOrEqual(2_000)
      expect(third).toBeLessThanOrEqual(4_000)
    })
  )

  it.effect("does not retry errors that would fail again", () =>
    Effect.gen(function* () {
      for (const kind of ["bad_request", "auth", "context_too_long", "cancelled"] as const) {
        const { make, count } = attempts([failure(kind), "ok"])
        const error = yield* Effect.flip(Stream.runDrain(retryStream(make)))
        expect(error.kind).toBe(kind)
        expect(count()).toBe(1)
      }
    })
  )

  it.effect("does not retry after the first element", () =>
    Effect.gen(function* () {
      let made = 0
      const make = () => {
        made++
        return Stream.concat(Stream.make("partial"), Stream.fail(failure("server")))
      }
      const error = yield* Effect.flip(Stream.runDrain(retryStream(make)))
      expect(error.kind).toBe("server")
      expect(made).toBe(1)
    })
  )
})
