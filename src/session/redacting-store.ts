/**
 * A session's SessionStore: the shared store (one folder of files), with every document this
 * session writes (its saves, a fork of it) redacted of the session's secrets first
 * (redact-document.ts). Reads are the store's own.
 */
import * as Effect from "effect/Effect"
import type { Secrets } from "../secrets/secrets.ts"
import { makeDocumentRedaction } from "./redact-document.ts"
import type { SessionDocument } from "./document.ts"
import type { SessionStoreShape } from "./store.ts"

export const redactingStore = (store: SessionStoreShape, secrets: Effect.Effect<Secrets>): SessionStoreShape => {
  const redaction = makeDocumentRedaction()
  const redacted = (doc: SessionDocument) => Effect.map(secrets, (known) => redaction(known, doc))
  return {
    ...store,
    save: (doc) => Effect.flatMap(redacted(doc), store.save),
    fork: (doc) => Effect.flatMap(redacted(doc), store.fork)
  }
}
