/**
 * The busy fiber: a turn, or a command that runs like one (/compact, /side), one at a time, in the
 * app's scope. Ctrl+C interrupts it without waiting for it (the caller may be inside it: Ctrl+C
 * in an approval dialog); leaving interrupts it and waits, so the turn saves what was complete.
 * Which prompts wait meanwhile is the app state's (the queue shows on screen); this holds the fiber.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"

export interface Turns {
  /** Runs `work` as the fiber Ctrl+C interrupts; `after` runs once it has ended, however it ended. */
  readonly start: (work: Effect.Effect<unknown>, after: Effect.Effect<void>) => Effect.Effect<void>
  /** Interrupts the running one, if any, without waiting for it. */
  readonly cancel: Effect.Effect<void>
  /** Interrupts the running one, if any, and waits until it and its `after` have ended. */
  readonly stop: Effect.Effect<void>
}

export const makeTurns: Effect.Effect<Turns, never, Scope.Scope> = Effect.gen(function* () {
  const scope = yield* Effect.scope
  const running = yield* Ref.make(Option.none<Fiber.RuntimeFiber<unknown>>())

  const start = Effect.fn("Turns.start")(function* (work: Effect.Effect<unknown>, after: Effect.Effect<void>) {
    // The fiber is known before it runs: a turn that ends at once must not leave itself behind as the running one.
    const registered = yield* Deferred.make<void>()
    const fiber = yield* Deferred.await(registered).pipe(
      Effect.zipRight(work),
      // The next queued turn starts from a turn's `after`, a finalizer: without this it could not be interrupted.
      Effect.interruptible,
      Effect.ensuring(Ref.set(running, Option.none()).pipe(Effect.zipRight(after))),
      Effect.forkIn(scope)
    )
    yield* Ref.set(running, Option.some(fiber))
    yield* Deferred.succeed(registered, undefined)
  })

  const interruptWith = (interrupt: (fiber: Fiber.RuntimeFiber<unknown>) => Effect.Effect<unknown>) =>
    Effect.flatMap(Ref.get(running), Option.match({ onNone: () => Effect.void, onSome: (fiber) => Effect.asVoid(interrupt(fiber)) }))

  return {
    start,
    cancel: Effect.withSpan(interruptWith(Fiber.interruptFork), "Turns.cancel"),
    stop: Effect.withSpan(interruptWith(Fiber.interrupt), "Turns.stop")
  }
})
