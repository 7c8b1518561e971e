/**
 * The app's forks (src/tui/app/forks.ts) from a finalizer, as `perform` runs them from a turn's
 * `after`: the work must stay interruptible.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { describe, expect, it } from "vitest"
import { forkInterruptibleDaemon, forkInterruptibleIn } from "../../../src/tui/app/forks.ts"

const within5s = <A, E>(body: Effect.Effect<A, E>) =>
  Effect.runPromise(body.pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("hung: the forked work could not be interrupted") })))

describe("work forked from a finalizer", () => {
  it("forkInterruptibleIn: closing the scope interrupts it (a status read forked in a turn's after held up leaving)", async () => {
    const interrupted = await within5s(
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        const started = yield* Deferred.make<void>()
        const said: Array<string> = []
        const work = Deferred.succeed(started, undefined).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Effect.sync(() => void said.push("interrupted")))
        )
        // As from `after`: a finalizer runs uninterruptibly.
        yield* Effect.void.pipe(Effect.ensuring(forkInterruptibleIn(work, scope)))
        yield* Deferred.await(started)
        yield* Scope.close(scope, Exit.void)
        return said
      })
    )
    expect(interrupted).toEqual(["interrupted"])
  })

  it("forkInterruptibleDaemon: a timeout inside the work can cut it short (a queued command forked in a turn's after could not be)", async () => {
    const outcome = await within5s(
      Effect.gen(function* () {
        const ended = yield* Deferred.make<string>()
        const work = Effect.never.pipe(
          Effect.timeout("20 millis"),
          Effect.match({ onFailure: () => "timed out", onSuccess: () => "ended" }),
          Effect.flatMap((result) => Deferred.succeed(ended, result))
        )
        yield* Effect.void.pipe(Effect.ensuring(forkInterruptibleDaemon(work)))
        return yield* Deferred.await(ended)
      })
    )
    expect(outcome).toBe("timed out")
  })
})
