/**
 * Another try for a model request that failed before anything reached the operator: rate limits,
 * overloads and server errors, with the server's retry-after or exponential backoff in between.
 * Once an event has been emitted the error stands: a retry would repeat text already shown.
 */
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Stream from "effect/Stream"
import { isRetryable, ProviderError } from "./errors.ts"

export interface RetryInfo {
  /** The attempt that just failed, 1-based. */
  readonly attempt: number
  readonly maxAttempts: number
  /** How long until the next attempt starts. */
  readonly delayMs: number
  readonly error: ProviderError
}

export interface RetryOptions<R = never> {
  /** Attempts in total, the first included (default 4). */
  readonly maxAttempts?: number
  /** Backoff before the second attempt when the server gave no retry-after; doubles each time (default 1 s). */
  readonly baseDelayMs?: number
  /** The longest retry-after waited for (default 60 s); a longer one fails at once with `refusedWait`. */
  readonly maxRetryAfterMs?: number
  /** Told before each wait, so the operator knows why nothing is happening. */
  readonly onRetry?: (info: RetryInfo) => Effect.Effect<void, never, R>
}

export const defaultMaxAttempts = 4
const defaultBaseDelayMs = 1_000
const defaultMaxRetryAfterMs = 60_000

/**
 * The wait after failed attempt `attempt` (1-based): the server's retry-after, capped; otherwise
 * base × 2^(attempt-1) with equal jitter (half fixed, half random; `random` is in [0, 1)).
 */
export const retryDelayMs = (
  attempt: number,
  error: ProviderError,
  random: number,
  options: Pick<RetryOptions, "baseDelayMs" | "maxRetryAfterMs"> = {}
): number => {
  if (error.retryAfterMs !== undefined) {
    return Math.min(Math.max(0, error.retryAfterMs), options.maxRetryAfterMs ?? defaultMaxRetryAfterMs)
  }
  const backoff = (options.baseDelayMs ?? defaultBaseDelayMs) * 2 ** (attempt - 1)
  return Math.round(backoff / 2 + (random * backoff) / 2)
}

const waitTooLong = (error: ProviderError, maxMs: number): boolean => error.retryAfterMs !== undefined && error.retryAfterMs > maxMs

const waitText = (ms: number): string => {
  const seconds = Math.ceil(ms / 1000)
  return seconds < 120 ? `${seconds} s` : seconds < 7200 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds / 3600)} h`
}

/**
 * A server asking for a longer wait than the operator allows: the turn fails now with the wait it
 * asked for, instead of waiting silently (or retrying early, which such servers refuse again).
 */
export const refusedWait = (error: ProviderError, maxMs: number): ProviderError =>
  new ProviderError({
    ...error,
    message: `${error.message}; the server asks to wait ${waitText(error.retryAfterMs ?? 0)}, more than retry.maxWaitSeconds (${Math.round(maxMs / 1000)} s in config.json): try again later or raise it`
  })

/** Runs `makeStream()` again on retryable errors that happen before its first element; sleeps on the Clock. */
export const retryStream = <A, R = never, R2 = never>(
  makeStream: () => Stream.Stream<A, ProviderError, R>,
  options: RetryOptions<R2> = {}
): Stream.Stream<A, ProviderError, R | R2> => {
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts

  const attempt = (number: number): Stream.Stream<A, ProviderError, R | R2> =>
    Stream.suspend(() => {
      let emitted = false
      return makeStream().pipe(
        Stream.mapChunks((chunk) => {
          emitted ||= chunk.length > 0
          return chunk
        }),
        Stream.catchAll((error) =>
          emitted || number >= maxAttempts || !isRetryable(error)
            ? Stream.fail(error)
            : waitTooLong(error, options.maxRetryAfterMs ?? defaultMaxRetryAfterMs)
            ? Stream.fail(refusedWait(error, options.maxRetryAfterMs ?? defaultMaxRetryAfterMs))
            : Stream.unwrap(
                Effect.gen(function* () {
                  const delayMs = retryDelayMs(number, error, yield* Random.next, options)
                  if (options.onRetry !== undefined) {
                    yield* options.onRetry({ attempt: number, maxAttempts, delayMs, error })
                  }
                  yield* Effect.sleep(delayMs)
                  return attempt(number + 1)
                })
              )
        )
      )
    })

  return attempt(1)
}
