/**
 * The summary request of a compaction (SPEC S2): a side request to the session's model with the
 * compaction.system text and one user message, the compaction.user template with its slots bound.
 * No tools, nothing recorded; it fails with a sentence for the operator (a provider error, a
 * timeout, an empty summary), and then the conversation stays as it was.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { ModelEntry } from "../providers/catalog.ts"
import { bindPlaceholders, type PlaceholderValues } from "../prompts/placeholders.ts"
import { newItemId } from "../session/ids.ts"
import type { Usage } from "../session/items.ts"
import type { ProvidersShape } from "../providers/providers.ts"
import type { SidePrompts } from "../prompts/prompt-resolver.ts"
import { sideRequest } from "./side-request.ts"
import { compactionSlots, type CompactionPromptInput } from "./compaction-prompt.ts"
import { CompactionFailed } from "./errors.ts"
import type { HookPipeline } from "../plugins/pipeline.ts"
import { messageOf } from "../text/error-text.ts"

export interface CompactionPolicy {
  readonly auto: boolean
  readonly threshold: number
  readonly keepRecentTokens: number
}

export type SummaryInput = Omit<CompactionPromptInput, "maxConversationChars">

export interface Summary {
  readonly text: string
  readonly usage: Usage | undefined
}

export interface CompactorShape {
  readonly settings: CompactionPolicy
  /** The summary text; the failure is why there is none. */
  readonly summarize: (input: SummaryInput) => Effect.Effect<Summary, CompactionFailed>
}

export class Compactor extends Context.Tag("crystal/Compactor")<Compactor, CompactorShape>() {}

export interface CompactorOptions {
  readonly settings: CompactionPolicy
  /** The session's model; read at each compaction, so /model applies. */
  readonly activeModel: Pick<ProvidersShape, "current">
  /**
   * Read once per summary: compaction.system with the host placeholders bound ({{mode}} is
   * compaction), the compaction.user template (its slots are bound here) and the host values bound
   * with it (the five compaction slots win).
   */
  readonly prompts: Effect.Effect<SidePrompts>
  /** The whole summary request, retries included (default 3 minutes). */
  readonly timeoutMs?: number | undefined
  readonly note?: ((text: string) => void) | undefined
  /** The plugins' compaction hooks; absent when no plugin has any. */
  readonly hooks?: HookPipeline | undefined
}

export const defaultCompactionTimeoutMs = 180_000

/** Room for the conversation text in the summary request: the window less the summary's own output, at a cautious 3 characters a token. */
export const maxConversationChars = (model: ModelEntry): number =>
  Math.max(16_000, (model.capabilities.contextWindow - model.capabilities.maxOutputTokens - 2_000) * 3)

export const compactionUserText = (template: string, input: CompactionPromptInput, hostValues: PlaceholderValues = new Map(), note?: (text: string) => void): string =>
  bindPlaceholders(template, new Map([...hostValues, ...compactionSlots(input)]), note)

export const makeCompactor = (options: CompactorOptions): CompactorShape => ({
  settings: options.settings,
  summarize: (input) => {
    const attempt = Effect.flatMap(options.prompts, ({ system, userTemplate, hostValues }) => {
      const { entry } = options.activeModel.current()
      const hooks = options.hooks
      const composed = compactionUserText(userTemplate, { ...input, maxConversationChars: maxConversationChars(entry) }, hostValues, options.note)
      // OnCompaction appends, then a raw RewriteCompaction replaces (S2); the summary gets the same two steps.
      return (hooks === undefined ? Effect.succeed(composed) : hooks.compactionPrompt(composed)).pipe(
        Effect.flatMap((text) =>
          sideRequest(options.activeModel, { system, items: [{ _tag: "user", id: newItemId(), text }], tools: [] }, hooks === undefined ? undefined : { hooks, purpose: "compaction" }).pipe(
            Effect.mapError((error) => new CompactionFailed({ message: `the summary request failed: ${error.message}` })),
            Effect.flatMap(({ text: summary, calledTool, usage }) => {
              if (summary.trim() === "") {
                return new CompactionFailed({
                  message: calledTool === undefined ? "the model returned an empty summary" : `the model called ${calledTool} instead of writing a summary`
                })
              }
              const stored = hooks === undefined ? Effect.succeed(summary.trim()) : hooks.compactionSummary(text, summary.trim())
              return Effect.map(stored, (final) => ({ text: final, usage }))
            })
          )
        )
      )
    })
    const timeoutMs = options.timeoutMs ?? defaultCompactionTimeoutMs
    return attempt.pipe(
      Effect.timeoutFail({ duration: Duration.millis(timeoutMs), onTimeout: () => new CompactionFailed({ message: `the summary took longer than ${Math.round(timeoutMs / 100) / 10} s` }) }),
      Effect.catchAllDefect((defect) => new CompactionFailed({ message: `the summary request failed: ${messageOf(defect)}` }))
    )
  }
})
