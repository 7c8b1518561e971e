import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type { SessionDocument } from "../session/document.ts"
import type { TranscriptItem } from "../session/items.ts"
import { SessionStore, type SessionError } from "../session/store.ts"

/** The active session: its document in memory, saved through the SessionStore after every change that matters. */
export interface ConversationShape {
  readonly document: Effect.Effect<SessionDocument>
  readonly append: (...items: ReadonlyArray<TranscriptItem>) => Effect.Effect<void>
  readonly update: (change: (doc: SessionDocument) => SessionDocument) => Effect.Effect<void>
  readonly save: Effect.Effect<void, SessionError>
}

export class Conversation extends Context.Tag("crystal/Conversation")<Conversation, ConversationShape>() {
  static readonly layer = (initial: SessionDocument): Layer.Layer<Conversation, never, SessionStore> =>
    Layer.effect(
      Conversation,
      Effect.gen(function* () {
        const store = yield* SessionStore
        const ref = yield* Ref.make(initial)
        const update = (change: (doc: SessionDocument) => SessionDocument) => Ref.update(ref, change)
        return {
          document: Ref.get(ref),
          append: (...items) => update((doc) => ({ ...doc, items: [...doc.items, ...items] })),
          update,
          save: Ref.get(ref).pipe(
            Effect.flatMap(store.save),
            Effect.flatMap((saved) => Ref.update(ref, (doc) => ({ ...doc, updatedAt: saved.updatedAt })))
          )
        }
      })
    )
}
