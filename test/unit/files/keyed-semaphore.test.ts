/** One task at a time per key, in order; interruption leaves the queue or lets a started task finish; idle keys are dropped. */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { describe, expect, it } from "vitest"
import { KeyedSemaphore } from "../../../src/files/keyed-semaphore.ts"

/** A task that logs its start, waits for its gate, then logs its end. */
const gated = (log: Array<string>, name: string, gate: Deferred.Deferred<void>) =>
  Effect.sync(() => log.push(`${name} start`)).pipe(
    Effect.zipRight(Deferred.await(gate)),
    Effect.zipRight(Effect.sync(() => log.push(`${name} end`))),
    Effect.as(name)
  )

/** Lets the forked fibers run until they block. */
const settle = Effect.yieldNow().pipe(Effect.repeatN(20))

describe("KeyedSemaphore", () => {
  it("runs the tasks of one key one at a time, in the order they asked, and drops the key when idle", async () => {
    const locks = new KeyedSemaphore()
    const log: Array<string> = []
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const gates = yield* Effect.all([Deferred.make<void>(), Deferred.make<void>(), Deferred.make<void>()])
        const fibers = yield* Effect.forEach(["a", "b", "c"], (name, i) => Effect.fork(locks.withPermit("/f")(gated(log, name, gates[i]!))))
        yield* settle
        const waiting = [...log]
        // Opened last to first: only the order of asking decides.
        for (const gate of [...gates].reverse()) yield* Deferred.succeed(gate, undefined)
        return { waiting, results: yield* Effect.forEach(fibers, Fiber.join) }
      })
    )
    expect(result.waiting).toEqual(["a start"])
    expect(log).toEqual(["a start", "a end", "b start", "b end", "c start", "c end"])
    expect(result.results).toEqual(["a", "b", "c"])
    expect(locks.size).toBe(0)
  })

  it("runs tasks of different keys side by side", async () => {
    const locks = new KeyedSemaphore()
    const log: Array<string> = []
    await Effect.runPromise(
      Effect.gen(function* () {
        const [one, two] = yield* Effect.all([Deferred.make<void>(), Deferred.make<void>()])
        const fibers = yield* Effect.all([Effect.fork(locks.withPermit("/a")(gated(log, "a", one))), Effect.fork(locks.withPermit("/b")(gated(log, "b", two)))])
        yield* settle
        expect(log).toEqual(["a start", "b start"])
        expect(locks.size).toBe(2)
        yield* Deferred.succeed(two, undefined)
        yield* Deferred.succeed(one, undefined)
        yield* Effect.forEach(fibers, Fiber.join)
      })
    )
    expect(locks.size).toBe(0)
  })

  it("a caller interrupted while it waits never runs its task; the next still waits for the running one", async () => {
    const locks = new KeyedSemaphore()
    const log: Array<string> = []
    await Effect.runPromise(
      Effect.gen(function* () {
        const [first, second, third] = yield* Effect.all([Deferred.make<void>(), Deferred.make<void>(), Deferred.make<void>()])
        const a = yield* Effect.fork(locks.withPermit("/f")(gated(log, "a", first)))
        const b = yield* Effect.fork(locks.withPermit("/f")(gated(log, "b", second)))
        const c = yield* Effect.fork(locks.withPermit("/f")(gated(log, "c", third)))
        yield* settle
        yield* Fiber.interrupt(b)
        yield* settle
        expect(log).toEqual(["a start"])
        yield* Deferred.succeed(third, undefined)
        yield* Deferred.succeed(first, undefined)
        yield* Effect.all([Fiber.join(a), Fiber.join(c)])
      })
    )
    expect(log).toEqual(["a start", "a end", "c start", "c end"])
    expect(locks.size).toBe(0)
  })

  it("a caller interrupted while its task runs returns at once; the task ends, and only then does the next start", async () => {
    const locks = new KeyedSemaphore()
    const log: Array<string> = []
    await Effect.runPromise(
      Effect.gen(function* () {
        const [first, second] = yield* Effect.all([Deferred.make<void>(), Deferred.make<void>()])
        const a = yield* Effect.fork(locks.withPermit("/f")(gated(log, "a", first)))
        yield* settle
        yield* Fiber.interrupt(a)
        const b = yield* Effect.fork(locks.withPermit("/f")(gated(log, "b", second)))
        yield* settle
        expect(log).toEqual(["a start"])
        yield* Deferred.succeed(second, undefined)
        yield* Deferred.succeed(first, undefined)
        yield* Fiber.join(b)
      })
    )
    expect(log).toEqual(["a start", "a end", "b start", "b end"])
    expect(locks.size).toBe(0)
  })

  it("a failing task passes the turn on and fails its caller", async () => {
    const locks = new KeyedSemaphore()
    const outcome = await Effect.runPromise(
      Effect.all([Effect.either(locks.withPermit("/f")(Effect.fail("no"))), locks.withPermit("/f")(Effect.succeed("yes"))], { concurrency: "unbounded" })
    )
    expect(outcome[0]._tag).toBe("Left")
    expect(outcome[1]).toBe("yes")
    expect(locks.size).toBe(0)
  })
})
