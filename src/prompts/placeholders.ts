/**
 * `{{name}}` placeholders (SPEC P2, P3): one pass over the text, each known name replaced by its
 * value inserted literally — a `{{x}}` inside a value stays as it is — and unknown names left
 * alone. A resolver (a plugin's, later) that throws or returns nothing leaves its token in place,
 * and the caller hears about it in English.
 */
import { messageOf } from "../text/error-text.ts"
export type PlaceholderValue = string | (() => string | undefined)
export type PlaceholderValues = ReadonlyMap<string, PlaceholderValue>

const token = /\{\{([A-Za-z_][A-Za-z0-9_.]*)\}\}/g

export const bindPlaceholders = (text: string, values: PlaceholderValues, note: (text: string) => void = () => {}): string =>
  text.replace(token, (whole, name: string) => {
    const value = values.get(name)
    if (value === undefined) return whole
    if (typeof value === "string") return value
    try {
      const resolved = value()
      if (resolved !== undefined) return resolved
      note(`The placeholder {{${name}}} has no value; it was left as it is.`)
    } catch (error) {
      note(`The placeholder {{${name}}} failed (${messageOf(error)}); it was left as it is.`)
    }
    return whole
  })

/** The names a text uses, in order of first use. */
export const placeholdersIn = (text: string): ReadonlyArray<string> => [...new Set([...text.matchAll(token)].map((match) => match[1] ?? ""))]
