/**
 * Requests outside the turn loop (title, reviewer, compaction summary, /side, describe_image, MCP
 * sampling) cost money like a turn's: the model they go through is wrapped so that each response's
 * usage lands in the session's totals, under the model that answered.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ActiveModel, ProvidersShape } from "../providers/providers.ts"
import { recordUsage } from "../session/document.ts"
import type { Usage } from "../session/items.ts"
import type { ConversationShape } from "./conversation.ts"

type Meter = Pick<ConversationShape, "update" | "save">

/** Adds one response's usage to the session's totals and schedules a write: a side request may be the last thing before exit. */
export const chargeUsage = (conversation: Meter, model: string, usage: Usage): Effect.Effect<void> =>
  Effect.zipRight(
    conversation.update((doc) => recordUsage(doc, model, usage)),
    conversation.save
  )

/** `active`, with every response's usage charged to the session. */
export const chargedTo = (conversation: Meter, active: Pick<ProvidersShape, "current">): Pick<ProvidersShape, "current"> => ({
  current: (): ActiveModel => {
    const { entry, client } = active.current()
    return {
      entry,
      client: {
        stream: (request) =>
          client.stream(request).pipe(Stream.tap((event) => (event.type === "usage" ? chargeUsage(conversation, entry.ref, event.usage) : Effect.void)))
      }
    }
  }
})
