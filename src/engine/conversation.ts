import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type { SessionDocument } from "../session/document.ts"
import type { TranscriptItem } from "../session/items.ts"
import { SessionStore, type SessionError } from "../session/store.ts"

/**
 * The active session: its document in memory, written behind the turn. `save` schedules a write
 * and returns at once, so a model request never waits for the disk; writes are serialised and
 * coalesced (the newest document wins), and `flush` waits for them. Closing the layer's scope
 * flushes, so an ending or interrupted session is always on disk.
 */
export interface ConversationShape {
  readonly document: Effect.Effect<SessionDocument>
  readonly append: (...items: ReadonlyArray<TranscriptItem>) => Effect.Effect<void>
  readonly update: (change: (doc: SessionDocument) => SessionDocument) => Effect.Effect<void>
  readonly save: Effect.Effect<void>
  /** Everything saved so far is on disk when this succeeds; it fails with the error of the last write. */
  readonly flush: Effect.Effect<void, SessionError>
  /** True while a turn runs: changes that must wait for an idle session (/promptset, …) check it. */
  readonly turnRunning: Effect.Effect<boolean>
  /** Runs a turn, marked as running until it ends however it ends. */
  readonly duringTurn: <A, E, R>(turn: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * True the first time `key` is asked while this conversation is open, false after: for what is
   * said once per session, not once per request (an image that cannot be sent, request-images.ts).
   */
  readonly firstTime: (key: string) => Effect.Effect<boolean>
}

export class Conversation extends Context.Tag("crystal/Conversation")<Conversation, ConversationShape>() {
  /** The conversation lives as long as the scope it is made in; closing it flushes. */
  static readonly make = (initial: SessionDocument): Effect.Effect<ConversationShape, never, SessionStore | Scope.Scope> =>
    Effect.gen(function* () {
      const store = yield* SessionStore
      const ref = yield* Ref.make(initial)
      const scope = yield* Effect.scope
      const writing = yield* Effect.makeSemaphore(1)
      const asked = yield* Ref.make<ReadonlySet<string>>(new Set())
      let requested = 0
      let written = 0
      let turns = 0
      const update = (change: (doc: SessionDocument) => SessionDocument) => Ref.update(ref, change)

      const writeLatest: Effect.Effect<void, SessionError> = writing.withPermits(1)(
        Effect.suspend(() => {
          if (written >= requested) return Effect.void
          const target = requested
          return Ref.get(ref).pipe(
            Effect.flatMap(store.save),
            Effect.flatMap((saved) => Ref.update(ref, (doc) => ({ ...doc, updatedAt: saved.updatedAt }))),
            Effect.tap(() => {
              written = Math.max(written, target)
            })
          )
        })
      )

      const save = Effect.suspend(() => {
        requested++
        // A failed background write is retried and reported by the next flush. Uninterruptible: an
        // interrupted write's promise would still land, possibly after (and over) a newer one.
        return Effect.forkIn(Effect.uninterruptible(Effect.ignore(writeLatest)), scope)
      }).pipe(Effect.asVoid)

      yield* Effect.addFinalizer(() => Effect.ignore(writeLatest))

      return {
        document: Ref.get(ref),
        append: (...items: ReadonlyArray<TranscriptItem>) => update((doc) => ({ ...doc, items: [...doc.items, ...items] })),
        update,
        save,
        flush: writeLatest,
        turnRunning: Effect.sync(() => turns > 0),
        duringTurn: (turn) =>
          Effect.acquireUseRelease(
            Effect.sync(() => turns++),
            () => turn,
            () => Effect.sync(() => turns--)
          ),
        firstTime: (key) => Ref.modify(asked, (keys) => (keys.has(key) ? [false, keys] : [true, new Set([...keys, key])]))
      } satisfies ConversationShape
    })
}
