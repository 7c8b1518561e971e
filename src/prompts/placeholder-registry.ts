/**
 * Placeholders that plugins add (SPEC P3). The host owns every name it binds itself (the session
 * slots and the template slots of review, compaction and image prompts): a plugin cannot take or
 * shadow one. The first plugin to register a name keeps it. Plugin values are resolved at each
 * composition; a resolver that throws or returns nothing leaves its token (placeholders.ts says so
 * in an English note).
 */
import type { PlaceholderValue, PlaceholderValues } from "./placeholders.ts"

/** Names the host binds: the session slots of SPEC P2 and the per-template ones. */
export const hostPlaceholderNames: ReadonlySet<string> = new Set([
  "env",
  "skills",
  "directories",
  "instructions",
  "instructions_section",
  "workspace",
  "is_git_repo",
  "git_root",
  "platform",
  "os",
  "architecture",
  "date",
  "time",
  "provider",
  "model",
  "model_line",
  "mode",
  "product_name",
  "session_id",
  "approval",
  // review.user
  "conversation",
  "tool_name",
  "tool_arguments",
  "host_risk",
  "host_authority",
  "classification_summary",
  // compaction.user
  "prior_summary_section",
  "summary_task",
  "output_template",
  "todos_section",
  // image.user
  "question"
])

const placeholderName = /^[A-Za-z_][A-Za-z0-9_.]*$/

export type Registration =
  | { readonly _tag: "Registered" }
  | { readonly _tag: "Refused"; readonly note: string }

export interface PlaceholderRegistry {
  /** `owner` is the plugin's name, for the notes. */
  readonly register: (owner: string, name: string, resolve: () => string | undefined) => Registration
  /** The host's values for one composition, with every registered plugin placeholder added. */
  readonly withHostValues: (host: PlaceholderValues) => PlaceholderValues
}

export const makePlaceholderRegistry = (): PlaceholderRegistry => {
  const registered = new Map<string, { readonly owner: string; readonly resolve: PlaceholderValue }>()
  return {
    register: (owner, name, resolve) => {
      if (!placeholderName.test(name)) {
        return { _tag: "Refused", note: `Plugin '${owner}': '${name}' is not a placeholder name (a letter or _, then letters, digits, _ or .); not registered.` }
      }
      if (hostPlaceholderNames.has(name)) {
        return { _tag: "Refused", note: `Plugin '${owner}': {{${name}}} belongs to Crystal; not registered.` }
      }
      const holder = registered.get(name)
      if (holder !== undefined) {
        return { _tag: "Refused", note: `Plugin '${owner}': {{${name}}} is already registered by plugin '${holder.owner}', which keeps it.` }
      }
      registered.set(name, { owner, resolve })
      return { _tag: "Registered" }
    },
    withHostValues: (host) => {
      if (registered.size === 0) return host
      const values = new Map(host)
      for (const [name, { resolve }] of registered) if (!values.has(name)) values.set(name, resolve)
      return values
    }
  }
}
