/**
 * Compacting the session's conversation (SPEC S2): /compact asks for it; the turn loop asks before
 * each request that would fill more than the configured share of the model's context window. A
 * summary that succeeds becomes a compaction record in the transcript (the history stays on disk;
 * requests start from the record, see context-view.ts). One that fails changes nothing, and the
 * operator is told. A turn compacts at most once: a context still too large after that ends the
 * turn with an error instead of compacting again.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ProviderError } from "../providers/errors.ts"
import type { SessionDocument } from "../session/document.ts"
import { newItemId } from "../session/ids.ts"
import type { Compaction } from "../session/items.ts"
import { Providers } from "../providers/providers.ts"
import { planCompaction } from "./compaction-plan.ts"
import { Compactor } from "./compactor.ts"
import { contextView } from "./context-view.ts"
import { Conversation } from "./conversation.ts"
import { Renderer } from "./renderer.ts"
import { estimateContextTokens } from "./token-estimate.ts"
import { Toolbox, toolDefinitions } from "./toolbox.ts"
import { plural } from "../text/plural.ts"
import { PlanFile } from "../plans/plan-file.ts"
import { planSteps } from "../plans/steps.ts"

export type CompactionOutcome =
  | { readonly _tag: "Compacted"; readonly record: Compaction; readonly summarizedItems: number; readonly keptItems: number }
  | { readonly _tag: "Refused"; readonly reason: string }
  | { readonly _tag: "Failed"; readonly reason: string }

/** The estimated input tokens of the next request built from this document. */
export const contextTokens = (doc: SessionDocument) =>
  Effect.map(Toolbox, (toolbox) =>
    estimateContextTokens({ system: doc.system ?? "", ...contextView(doc.items), tools: toolDefinitions(toolbox.catalog(doc.mode)) })
  )

const thousands = (tokens: number): string => (tokens >= 10_000 ? `${Math.round(tokens / 1000)}k` : tokens.toLocaleString("en-US"))

/** The plan's path and step lines as the file has them now; undefined without a plan (or a session without a plan file). */
const planSnapshot = Effect.gen(function* () {
  const found = yield* Effect.serviceOption(PlanFile)
  if (Option.isNone(found)) return undefined
  const read = yield* found.value.read
  return read._tag === "Read" ? { path: found.value.path, steps: planSteps(read.text).map((step) => step.line) } : undefined
})

export const compactConversation = (trigger: "manual" | "auto", instructions?: string) =>
  Effect.gen(function* () {
    const compactor = yield* Compactor
    const conversation = yield* Conversation
    const renderer = yield* Renderer
    const doc = yield* conversation.document
    const plan = planCompaction(doc.items, compactor.settings.keepRecentTokens, (yield* Toolbox).fileWriters)
    if (plan === undefined) {
      return { _tag: "Refused", reason: "there is nothing to compact yet" } satisfies CompactionOutcome
    }
    const tokensBefore = yield* contextTokens(doc)
    const todos = doc.todos ?? []
    const asked = instructions?.trim() ?? ""
    const summary = yield* compactor
      .summarize({ summarized: plan.summarized, priorSummary: plan.prior?.summary, todos, instructions: asked === "" ? undefined : asked })
      .pipe(Effect.either)
    if (summary._tag === "Left") {
      yield* renderer.note(`Compaction failed: ${summary.left.message}. The conversation is unchanged.`)
      return { _tag: "Failed", reason: summary.left.message } satisfies CompactionOutcome
    }
    const planKept = yield* planSnapshot
    const draft: Compaction = {
      _tag: "compaction",
      id: newItemId(),
      summary: summary.right.text,
      ...(plan.firstKeptId === undefined ? {} : { firstKeptId: plan.firstKeptId }),
      filesTouched: plan.filesTouched,
      todos,
      trigger,
      ...(asked === "" ? {} : { instructions: asked }),
      ...(planKept === undefined ? {} : { plan: planKept }),
      tokensBefore,
      tokensAfter: 0
    }
    // Measured on the document as it is now: a compaction in a turn may run while nothing else changes it, but /compact need not.
    const current = yield* conversation.document
    const tokensAfter = yield* contextTokens({ ...current, items: [...current.items, draft] })
    const record: Compaction = { ...draft, tokensAfter }
    yield* conversation.append(record)
    // The summary's usage is already in the session's totals: the compactor's model is charged to it (layers/session.ts).
    yield* conversation.save
    const summarizedItems = plan.summarized.filter((item) => item._tag !== "note").length
    yield* renderer.note(
      `Compacted the conversation${trigger === "auto" ? " (it was nearing the model's context limit)" : ""}: ${plural(summarizedItems, "earlier message")} summarised, ` +
        `${plan.keptCount} kept verbatim; about ${thousands(tokensBefore)} → ${thousands(tokensAfter)} tokens. The full history stays in the session file.`
    )
    return { _tag: "Compacted", record, summarizedItems, keptItems: plan.keptCount } satisfies CompactionOutcome
  })

/** What the turn loop remembers between its requests. */
export interface TurnCompactionState {
  compacted: boolean
}

const tooLong = (model: string, provider: string, message: string) =>
  new ProviderError({ kind: "context_too_long", provider, message: `${message} for ${model}; start a new session, or lower compaction.keepRecentTokens in config.json` })

/**
 * Before a request of a turn: compacts once when the context passes the threshold, and fails
 * rather than send a request that cannot fit. Without a Compactor (or with `auto: false`) it does nothing.
 */
export const fitContext = (state: TurnCompactionState) =>
  Effect.gen(function* () {
    const found = yield* Effect.serviceOption(Compactor)
    if (Option.isNone(found) || !found.value.settings.auto) return
    const settings = found.value.settings
    const conversation = yield* Conversation
    const { entry } = (yield* Providers).current()
    const window = entry.capabilities.contextWindow
    const limit = Math.floor(window * settings.threshold)
    const before = yield* contextTokens(yield* conversation.document)
    if (before <= limit) return
    if (state.compacted) {
      if (before <= window) return
      return yield* tooLong(entry.ref, entry.provider.name, `The conversation needs about ${thousands(before)} tokens, more than the ${thousands(window)}-token context window, and it was already compacted in this turn`)
    }
    state.compacted = true
    const outcome = yield* compactConversation("auto").pipe(Effect.provideService(Compactor, found.value))
    const after = yield* contextTokens(yield* conversation.document)
    if (outcome._tag === "Compacted" && after > limit) {
      return yield* tooLong(
        entry.ref,
        entry.provider.name,
        `Even compacted, the conversation needs about ${thousands(after)} tokens, over ${Math.round(settings.threshold * 100)}% of the ${thousands(window)}-token context window`
      )
    }
    if (after > window) {
      return yield* tooLong(entry.ref, entry.provider.name, `The conversation needs about ${thousands(after)} tokens, more than the ${thousands(window)}-token context window, and compaction did not shrink it`)
    }
  })
