/**
 * A title that arrives for a session this process has already closed (the operator switched with
 * /clear, /resume or /fork while the title request ran). It is written under the session's lock,
 * onto the file as it is now, and only when the session is still untitled: a session another
 * process has opened meanwhile is left alone (it gets a title the next time it is continued).
 */
import * as Effect from "effect/Effect"
import { acquireSessionLock } from "./lock.ts"
import type { SessionStoreShape } from "./store.ts"

export type LateTitleOutcome = "saved" | "already titled" | "open elsewhere"

export const saveLateTitle = (store: SessionStoreShape, id: string, title: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() => acquireSessionLock(store.dir, id)),
    (lock) =>
      lock._tag === "Busy"
        ? Effect.succeed<LateTitleOutcome>("open elsewhere")
        : Effect.gen(function* () {
            const doc = yield* store.load(id)
            if (doc.title !== undefined) return "already titled" as const
            yield* store.save({ ...doc, title })
            return "saved" as const
          }),
    (lock) => Effect.sync(() => (lock._tag === "Locked" ? lock.release() : undefined))
  )
