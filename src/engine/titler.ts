/**
 * Session titles (issue 8 item 3): after the first exchange, a side request to the session's model
 * with the topic prompt (SPEC P1's named `topic`, replaceable like any prompt) and the conversation
 * digest names the session. Like the reviewer's, the request has no tools and is not recorded in
 * the transcript. It never fails and never blocks a turn: a failure, a timeout or an empty answer
 * leaves the session untitled, and a later process may try again.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { bindPlaceholders } from "../prompts/placeholders.ts"
import type { SessionDocument } from "../session/document.ts"
import { newItemId } from "../session/ids.ts"
import type { TranscriptItem } from "../session/items.ts"
import type { ProvidersShape } from "../providers/providers.ts"
import type { SidePrompts } from "../prompts/prompt-resolver.ts"
import { sideRequest } from "./side-request.ts"
import { conversationDigest } from "./conversation-digest.ts"
import { Conversation } from "./conversation.ts"

export interface TitlerOptions {
  readonly activeModel: Pick<ProvidersShape, "current">
  /** The topic prompt as resolved now (its {{conversation}} slot is bound here) and the host values bound in the same pass. */
  readonly prompts: Effect.Effect<SidePrompts>
  readonly timeoutMs?: number | undefined
}

export const defaultTitleTimeoutMs = 15_000
const maxTitleChars = 80

/** The first line of the answer, without quotes, a "Title:" label or a final period; undefined when nothing is left. */
export const cleanTitle = (answer: string): string | undefined => {
  const line = answer
    .split("\n")
    .map((part) => part.trim())
    .find((part) => part !== "")
  if (line === undefined) return undefined
  const title = line
    .replace(/^(#+\s*)?(\*\*)?(title|topic)\s*:\s*/i, "")
    .replace(/^[*_"'`“‘]+|[*_"'`”’]+$/g, "")
    .replace(/[.。]+$/, "")
    .trim()
  if (title === "") return undefined
  return title.length > maxTitleChars ? `${title.slice(0, maxTitleChars - 1).trimEnd()}…` : title
}

/** Untitled, with a complete exchange: an operator message and an assistant answer with text. */
export const needsTitle = (doc: SessionDocument): boolean =>
  doc.title === undefined &&
  doc.items.some((item) => item._tag === "user" && item.synthetic === undefined) &&
  doc.items.some((item) => item._tag === "assistant" && item.incomplete !== true && item.text.trim() !== "")

const askForTitle = (options: TitlerOptions, items: ReadonlyArray<TranscriptItem>) =>
  Effect.flatMap(options.prompts, ({ userTemplate, hostValues }) => {
    const text = bindPlaceholders(userTemplate, new Map([...(hostValues ?? []), ["conversation", conversationDigest(items)]]))
    return sideRequest(options.activeModel, { system: "", items: [{ _tag: "user", id: newItemId(), text }], tools: [] }).pipe(Effect.map((response) => response.text))
  })

/**
 * Names the session when it is untitled and has had an exchange; returns the title it set, if any.
 * A title set meanwhile (by the operator, say) is never replaced.
 */
export const nameSession = (options: TitlerOptions): Effect.Effect<string | undefined, never, Conversation> =>
  Effect.gen(function* () {
    const conversation = yield* Conversation
    const doc = yield* conversation.document
    if (!needsTitle(doc)) return undefined
    const title = cleanTitle(yield* askForTitle(options, doc.items))
    if (title === undefined) return undefined
    let set = false
    yield* conversation.update((current) => {
      if (current.title !== undefined) return current
      set = true
      return { ...current, title }
    })
    if (set) yield* conversation.save
    return set ? title : undefined
  }).pipe(
    Effect.timeoutTo({ duration: Duration.millis(options.timeoutMs ?? defaultTitleTimeoutMs), onSuccess: (title) => title, onTimeout: () => undefined }),
    Effect.catchAll(() => Effect.succeed(undefined)),
    Effect.catchAllDefect(() => Effect.succeed(undefined))
  )
