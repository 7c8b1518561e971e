import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { Conversation } from "../../../src/engine/conversation.ts"
import { makeSessionStore, SessionError, SessionStore, type SessionStoreShape } from "../../../src/session/store.ts"
import { tempDir } from "../../support/temp.ts"

/** The real store, counting writes and able to fail them. */
const countingStore = (inner: SessionStoreShape) => {
  const state = { writes: 0, fail: false }
  const store: SessionStoreShape = {
    ...inner,
    save: (doc) =>
      Effect.suspend(() => {
        state.writes++
        return state.fail ? Effect.fail(new SessionError({ message: "disk full" })) : inner.save(doc)
      })
  }
  return { state, store }
}

const setup = async () => {
  const inner = makeSessionStore(path.join(await tempDir(), "sessions"))
  const { state, store } = countingStore(inner)
  const doc = inner.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" })
  const layer = Layer.scoped(Conversation, Conversation.make(doc)).pipe(Layer.provide(Layer.succeed(SessionStore, store)))
  return { inner, state, doc, layer }
}

describe("Conversation (write-behind saves)", () => {
  it("coalesces a burst of saves and flushes the newest document", async () => {
    const { inner, state, doc, layer } = await setup()
    await Effect.runPromise(
      Effect.gen(function* () {
        const conversation = yield* Conversation
        for (let i = 0; i < 20; i++) {
          yield* conversation.append({ _tag: "note", id: String(i), text: `n${i}` })
          yield* conversation.save
        }
        yield* conversation.flush
      }).pipe(Effect.provide(layer))
    )
    expect(state.writes).toBeLessThan(20)
    expect((await Effect.runPromise(inner.load(doc.id))).items).toHaveLength(20)
  })

  it("never lets an interrupted earlier write land over a later one when its scope closes", async () => {
    const inner = makeSessionStore(path.join(await tempDir(), "sessions"))
    const doc = inner.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" })
    let writes = 0
    // Like the file system: once started, a write completes whether or not anyone still waits for it.
    const store: SessionStoreShape = {
      ...inner,
      save: (saved) =>
        writes++ === 0
          ? Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 80)).then(() => Effect.runPromise(inner.save(saved))))
          : inner.save(saved)
    }
    const layer = Layer.scoped(Conversation, Conversation.make(doc)).pipe(Layer.provide(Layer.succeed(SessionStore, store)))
    await Effect.runPromise(
      Effect.gen(function* () {
        const conversation = yield* Conversation
        yield* conversation.append({ _tag: "note", id: "1", text: "first" })
        yield* conversation.save
        yield* Effect.sleep("10 millis")
        yield* conversation.append({ _tag: "note", id: "2", text: "second" })
        yield* conversation.save
      }).pipe(Effect.provide(layer))
    )
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect((await Effect.runPromise(inner.load(doc.id))).items.map((item) => item.id)).toEqual(["1", "2"])
  })

  it("writes what was saved when its scope closes, even without a flush", async () => {
    const { inner, doc, layer } = await setup()
    await Effect.runPromise(
      Effect.gen(function* () {
        const conversation = yield* Conversation
        yield* conversation.append({ _tag: "note", id: "x", text: "kept" })
        yield* conversation.save
      }).pipe(Effect.provide(layer))
    )
    expect((await Effect.runPromise(inner.load(doc.id))).items).toHaveLength(1)
  })

  it("reports a failed write on flush and recovers on the next one", async () => {
    const { state, layer } = await setup()
    const results = await Effect.runPromise(
      Effect.gen(function* () {
        const conversation = yield* Conversation
        state.fail = true
        yield* conversation.save
        const first = yield* Effect.either(conversation.flush)
        state.fail = false
        const second = yield* Effect.either(conversation.flush)
        return [first, second]
      }).pipe(Effect.provide(layer))
    )
    expect(results.map(Either.isLeft)).toEqual([true, false])
  })
})

describe("Conversation.firstTime", () => {
  it("is true once per key while the conversation is open; another conversation starts afresh", async () => {
    const { layer } = await setup()
    const ask = Effect.flatMap(Conversation, (conversation) => Effect.all([conversation.firstTime("a"), conversation.firstTime("b"), conversation.firstTime("a")]))
    expect(await Effect.runPromise(ask.pipe(Effect.provide(layer)))).toEqual([true, true, false])
    expect(await Effect.runPromise(ask.pipe(Effect.provide(layer)))).toEqual([true, true, false])
  })
})
