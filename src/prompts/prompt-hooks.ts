/**
 * What plugins do to the composed prompts (SPEC P8, P3), as the PromptResolver calls it: refresh
 * the plugin placeholders' values before a composition, append onPrompt texts, then let a raw
 * rewritePrompt replace the whole text. The PluginLoader's pipeline implements it.
 */
import type * as Effect from "effect/Effect"

export interface PromptHooks {
  readonly refreshPlaceholders: Effect.Effect<void>
  readonly promptAppends: (mode: "work" | "plan" | "review") => Effect.Effect<ReadonlyArray<string>>
  readonly rewritePrompt: (mode: "work" | "plan" | "review" | "compaction", text: string) => Effect.Effect<string>
}
