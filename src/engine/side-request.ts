/**
 * One request to the session's model outside the turn loop (reviewer, compaction summary, title,
 * side question): streamed, retried like a turn's requests, and collected into the text it
 * answered, the first tool it tried to call (never run) and its usage.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ModelRequest } from "../providers/model-client.ts"
import { retryStream } from "../providers/retry.ts"
import type { Usage } from "../session/items.ts"
import type { ProvidersShape } from "../providers/providers.ts"

export interface SideResponse {
  readonly text: string
  readonly calledTool: string | undefined
  readonly usage: Usage | undefined
  /** "provider/model" that answered. */
  readonly model: string
}

/** `request` without a model: the active one is read when the request is made, so /model applies. */
export const sideRequest = (activeModel: Pick<ProvidersShape, "current">, request: Omit<ModelRequest, "model">) =>
  Effect.suspend(() => {
    const { entry, client } = activeModel.current()
    let text = ""
    let calledTool: string | undefined
    let usage: Usage | undefined
    return retryStream(() => client.stream({ ...request, model: entry })).pipe(
      Stream.runForEach((event) =>
        Effect.sync(() => {
          if (event.type === "text_delta") text += event.text
          else if (event.type === "tool_call") calledTool ??= event.name
          else if (event.type === "usage") usage = event.usage
        })
      ),
      Effect.map((): SideResponse => ({ text, calledTool, usage, model: entry.ref }))
    )
  })
