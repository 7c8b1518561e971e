/** The app's input fiber (src/tui/app/input.ts) on real fibers: one that dies tells the app, which leaves. */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { describe, expect, it } from "vitest"
import { readInput, superviseInput, type AppInput } from "../../../src/tui/app/input.ts"
import type { LiveRegion } from "../../../src/tui/app/live.ts"
import type { AppEvent } from "../../../src/tui/app/state.ts"
import { makeStore } from "../../../src/tui/app/store.ts"
import { makeImageInput } from "../../../src/tui/image-input.ts"
import { plainPalette } from "../../../src/terminal/colors.ts"
import { appState } from "./app-fixture.ts"

/** A live region that keeps the committed lines instead of drawing them. */
const recordingLive = (committed: Array<string>): LiveRegion => ({
  render: () => undefined,
  renderSoon: () => undefined,
  commit: (lines) => void committed.push(...lines),
  clear: () => undefined,
  close: () => undefined
})

const run = <A>(body: Effect.Effect<A, never, Scope.Scope>) =>
  Effect.runPromise(Effect.scoped(body).pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("hung") })))

describe("the input fiber", () => {
  it("a throw in the key path is told to the app as InputBroke (it used to kill the fiber silently, and the app hung in raw mode)", async () => {
    const told = await run(
      Effect.gen(function* () {
        const inbox = yield* Queue.unbounded<AppInput>()
        const imageInput = yield* makeImageInput(inbox)
        const store = makeStore(appState())
        const events: Array<AppEvent> = []
        const handle = (event: AppEvent) => Effect.sync(() => void events.push(event))
        const input = readInput(inbox, {
          store,
          live: recordingLive([]),
          palette: plainPalette,
          imageInput,
          handle,
          // Read for every key: the injected failure.
          services: () => {
            throw new Error("the key path broke")
          }
        })
        const fiber = yield* Effect.fork(superviseInput(input, handle))
        yield* Queue.offer(inbox, { _tag: "Data", data: "x" })
        yield* Fiber.join(fiber)
        return events
      })
    )
    expect(told).toEqual([{ _tag: "InputBroke", reason: expect.stringContaining("the key path broke") }])
  })

  it("interrupted (the app leaving), it tells nothing", async () => {
    const told = await run(
      Effect.gen(function* () {
        const events: Array<AppEvent> = []
        const fiber = yield* Effect.fork(superviseInput(Effect.never, (event) => Effect.sync(() => void events.push(event))))
        yield* Effect.yieldNow()
        yield* Fiber.interrupt(fiber)
        return events
      })
    )
    expect(told).toEqual([])
  })
})
