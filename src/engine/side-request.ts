/**
 * One request to the session's model outside the turn loop (reviewer, compaction summary, title,
 * side question): streamed, retried like a turn's requests, and collected into the text it
 * answered, the first tool it tried to call (never run) and its usage.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ModelRequest } from "../providers/model-client.ts"
import { retryStream } from "../providers/retry.ts"
import type { FinishReason, ImageRef, Usage } from "../session/items.ts"
import { newItemId } from "../session/ids.ts"
import type { HookPipeline } from "../plugins/pipeline.ts"
import type { ProvidersShape } from "../providers/providers.ts"

export interface SideResponse {
  readonly text: string
  readonly calledTool: string | undefined
  readonly usage: Usage | undefined
  /** "provider/model" that answered. */
  readonly model: string
  /** Why the model stopped, when the stream said. */
  readonly finishReason: FinishReason | undefined
}

/** A side request that plugins see (the side question, an MCP server's sampling, the compaction summary); the reviewer and the titler pass none. */
export interface SideRequestHooks {
  readonly hooks: HookPipeline
  readonly purpose: "side" | "compaction"
  /** The images the session holds, by content hash (what a raw hook may name). */
  readonly held?: ReadonlyMap<string, ImageRef> | undefined
}

/** `request` without a model: the active one is read when the request is made, so /model applies. */
export const sideRequest = (activeModel: Pick<ProvidersShape, "current">, request: Omit<ModelRequest, "model">, plugins?: SideRequestHooks) =>
  Effect.suspend(() => {
    const { entry, client } = activeModel.current()
    let text = ""
    let calledTool: string | undefined
    let usage: Usage | undefined
    let finishReason: FinishReason | undefined
    const full: ModelRequest = { ...request, model: entry }
    const outbound = plugins === undefined ? Effect.succeed(full) : Effect.map(plugins.hooks.outbound(plugins.purpose, full, plugins.held ?? new Map()), (out) => out.request)
    return Effect.flatMap(outbound, (sent) =>
      retryStream(() => client.stream(sent)).pipe(
        Stream.runForEach((event) =>
          Effect.sync(() => {
            if (event.type === "text_delta") text += event.text
            else if (event.type === "tool_call") calledTool ??= event.name
            else if (event.type === "usage") usage = event.usage
            else if (event.type === "finish") finishReason = event.reason
          })
        ),
        Effect.map((): SideResponse => ({ text, calledTool, usage, model: entry.ref, finishReason })),
        Effect.tap((response) =>
          plugins === undefined
            ? Effect.void
            : plugins.hooks.modelResponse(plugins.purpose, {
                _tag: "assistant",
                id: newItemId(),
                text: response.text,
                model: response.model,
                ...(response.usage === undefined ? {} : { usage: response.usage }),
                ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason })
              })
        )
      )
    )
  })
