/**
 * The system text of a mode (SPEC P8): the resolved body with its placeholders bound, then the
 * enabled prompt attachments for the mode (placeholders bound the same way). Plugin appends and
 * the raw rewrite join here when plugins exist.
 */
import type { AttachmentTexts } from "./attachments.ts"
import type { AttachablePrompt } from "./names.ts"
import { bindPlaceholders, type PlaceholderValues } from "./placeholders.ts"
import { resolvePrompt, type PromptLocations, type ResolvedPrompt } from "./resolver.ts"

export interface Composed {
  readonly text: string
  readonly body: ResolvedPrompt
  /** English notes (a placeholder that failed, for example). */
  readonly notes: ReadonlyArray<string>
}

export const composePrompt = (
  name: AttachablePrompt,
  values: PlaceholderValues,
  locations: PromptLocations,
  attachments: AttachmentTexts = () => []
): Composed => {
  const notes: Array<string> = []
  const bind = (text: string) => bindPlaceholders(text, values, (note) => notes.push(note))
  const body = resolvePrompt(name, locations)
  notes.push(...body.notes)
  const text = joinParts([bind(body.text), ...attachments(name, bind)])
  return { text, body, notes }
}

/** One blank line between parts; the last part keeps its own ending. */
export const joinParts = (parts: ReadonlyArray<string>): string =>
  parts.map((part, index) => (index < parts.length - 1 ? part.replace(/\n+$/, "") : part)).join("\n\n")
