/**
 * An image whose media file is missing is noted once per session, not once per request: the
 * memory of what was noted belongs to the session's Conversation, so a new session (or the same
 * document reopened) says it again.
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { Conversation } from "../../../src/engine/conversation.ts"
import { Renderer } from "../../../src/engine/renderer.ts"
import { requestImages } from "../../../src/engine/request-images.ts"
import { MediaStore } from "../../../src/media/media-store.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"
import { makeSessionStore, SessionStore } from "../../../src/session/store.ts"
import { localModel } from "../../support/model-entry.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { tempDir } from "../../support/temp.ts"

const missing = "a".repeat(64)
const items: ReadonlyArray<TranscriptItem> = [{ _tag: "user", id: "u1", text: "look [Image #1]", images: [{ sha256: missing, mime: "image/png", marker: "[Image #1]" }] }]

describe("requestImages", () => {
  it("notes a missing image once per session, in the conversation and to the renderer", async () => {
    const store = makeSessionStore(path.join(await tempDir(), "sessions"))
    const doc = store.create({ workspace: "/w", model: "local/m", mode: "work", approval: "default" })
    const shown: Array<string> = []
    const session = () =>
      Layer.mergeAll(
        Layer.scoped(Conversation, Conversation.make({ ...doc, items })).pipe(Layer.provide(Layer.succeed(SessionStore, store))),
        MediaStore.layerTest(),
        Layer.succeed(Renderer, silentRenderer({ note: (text) => Effect.sync(() => void shown.push(text)) }))
      )
    const twoRequests = Effect.gen(function* () {
      const model = localModel("http://127.0.0.1:1", true)
      const first = yield* requestImages(items, model)
      const second = yield* requestImages(items, model)
      const notes = (yield* (yield* Conversation).document).items.filter((item) => item._tag === "note")
      return { first, second, notes: notes.length }
    })
    const one = await Effect.runPromise(twoRequests.pipe(Effect.provide(session())))
    expect(one).toEqual({ first: new Map(), second: new Map(), notes: 1 })
    expect(shown).toEqual([expect.stringMatching(/^\[Image #1\] is not sent to the model: .*put the file back to send it again\)$/)])
    const other = await Effect.runPromise(twoRequests.pipe(Effect.provide(session())))
    expect(other.notes).toBe(1)
    expect(shown).toHaveLength(2)
  })
})
