/** The busy fiber (src/tui/app/turns.ts), on real fibers: cancel, stop, and the turn a turn's end starts. */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { makeTurns, type Turns } from "../../../src/tui/app/turns.ts"

/** Runs `body` with fresh turns in a scope; a fiber that never ends fails the test (by its timeout, or vitest's when it cannot be interrupted). */
const withTurns = <A>(body: (turns: Turns, said: Array<string>) => Effect.Effect<A>) =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(makeTurns, (turns) => body(turns, []))).pipe(
      Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("hung") })
    )
  )

/** Work that says it started and waits until interrupted, saying so. */
const endless = (said: Array<string>, name: string, started: Deferred.Deferred<void>) =>
  Effect.sync(() => said.push(`${name} started`)).pipe(
    Effect.zipRight(Deferred.succeed(started, undefined)),
    Effect.zipRight(Effect.never),
    Effect.onInterrupt(() => Effect.sync(() => said.push(`${name} interrupted`)))
  )

describe("turns", () => {
  it("runs the work, then its after", async () => {
    const said = await withTurns((turns, said) =>
      Effect.gen(function* () {
        const ended = yield* Deferred.make<void>()
        yield* turns.start(Effect.sync(() => said.push("work")), Effect.sync(() => said.push("after")).pipe(Effect.zipRight(Deferred.succeed(ended, undefined))))
        yield* Deferred.await(ended)
        return said
      })
    )
    expect(said).toEqual(["work", "after"])
  })

  it("cancel interrupts the running work without waiting; its after still runs", async () => {
    const said = await withTurns((turns, said) =>
      Effect.gen(function* () {
        const started = yield* Deferred.make<void>()
        const ended = yield* Deferred.make<void>()
        yield* turns.start(endless(said, "turn", started), Effect.sync(() => said.push("after")).pipe(Effect.zipRight(Deferred.succeed(ended, undefined))))
        yield* Deferred.await(started)
        yield* turns.cancel
        yield* Deferred.await(ended)
        return said
      })
    )
    expect(said).toEqual(["turn started", "turn interrupted", "after"])
  })

  it("stop returns once the work and its after have ended; with nothing running it returns at once", async () => {
    const said = await withTurns((turns, said) =>
      Effect.gen(function* () {
        yield* turns.stop
        const started = yield* Deferred.make<void>()
        yield* turns.start(endless(said, "turn", started), Effect.sleep("20 millis").pipe(Effect.zipRight(Effect.sync(() => said.push("after")))))
        yield* Deferred.await(started)
        yield* turns.stop
        said.push("stopped")
        return said
      })
    )
    expect(said).toEqual(["turn started", "turn interrupted", "after", "stopped"])
  })

  it("a turn started from a turn's after (the next queued prompt) can be cancelled", async () => {
    const said = await withTurns((turns, said) =>
      Effect.gen(function* () {
        const secondStarted = yield* Deferred.make<void>()
        const secondEnded = yield* Deferred.make<void>()
        const second = turns.start(endless(said, "second", secondStarted), Deferred.succeed(secondEnded, undefined))
        const firstStarted = yield* Deferred.make<void>()
        yield* turns.start(endless(said, "first", firstStarted), second)
        yield* Deferred.await(firstStarted)
        yield* turns.cancel
        yield* Deferred.await(secondStarted)
        yield* turns.cancel
        yield* Deferred.await(secondEnded)
        return said
      })
    )
    expect(said).toEqual(["first started", "first interrupted", "second started", "second interrupted"])
  })

  it("the turn can cancel itself (Ctrl+C in a dialog it opened) without waiting on itself", async () => {
    const said = await withTurns((turns, said) =>
      Effect.gen(function* () {
        const ended = yield* Deferred.make<void>()
        const work = Effect.sync(() => said.push("asks")).pipe(
          Effect.zipRight(turns.cancel),
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Effect.sync(() => said.push("interrupted")))
        )
        yield* turns.start(work, Deferred.succeed(ended, undefined))
        yield* Deferred.await(ended)
        return said
      })
    )
    expect(said).toEqual(["asks", "interrupted"])
  })

  it("a turn that ended at once is not the running one: cancel and stop leave the next alone until asked", async () => {
    const said = await withTurns((turns, said) =>
      Effect.gen(function* () {
        const firstEnded = yield* Deferred.make<void>()
        yield* turns.start(Effect.void, Deferred.succeed(firstEnded, undefined))
        yield* Deferred.await(firstEnded)
        yield* turns.cancel
        yield* turns.stop
        const started = yield* Deferred.make<void>()
        const ended = yield* Deferred.make<void>()
        yield* turns.start(endless(said, "next", started), Deferred.succeed(ended, undefined))
        yield* Deferred.await(started)
        yield* turns.stop
        return [...said, (yield* Deferred.isDone(ended)) ? "ended" : "running"]
      })
    )
    expect(said).toEqual(["next started", "next interrupted", "ended"])
  })
})
