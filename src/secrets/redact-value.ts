/**
 * A JSON-like value (tool-call arguments, a transcript item, a session document) with the secrets
 * redacted in every string it holds, object keys included (redact.ts's redactText on each).
 * Unchanged parts are returned as they are, the same objects, so a value without a secret costs
 * one walk and no copy. Values under a `keep` key (a provider's opaque state, which must go back
 * byte-exact) are never touched. Recursive: callers pass values whose depth is bounded (tool
 * arguments at 64 levels, providers/tool-arguments.ts; session files at 128, session/store.ts).
 */
import { redactText } from "./redact.ts"
import type { Secrets } from "./secrets.ts"

export interface ValueRedaction {
  /** Property names whose values are kept exactly as they are. */
  readonly keep?: ReadonlySet<string>
}

const walk = (secrets: Secrets, value: unknown, keep: ReadonlySet<string> | undefined): unknown => {
  if (typeof value === "string") return redactText(secrets, value)
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    let copy: Array<unknown> | undefined
    value.forEach((element: unknown, index) => {
      const redacted = walk(secrets, element, keep)
      if (redacted === element) return
      copy ??= [...value]
      copy[index] = redacted
    })
    return copy ?? value
  }
  let changed = false
  const entries = Object.entries(value).map(([name, element]): [string, unknown] => {
    if (keep?.has(name) === true) return [name, element]
    const redactedName = redactText(secrets, name)
    const redacted = walk(secrets, element, keep)
    if (redactedName !== name || redacted !== element) changed = true
    return [redactedName, redacted]
  })
  return changed ? Object.fromEntries(entries) : value
}

/** `value` with every string in it redacted; `value` itself when nothing was. */
export const redactValue = <A>(secrets: Secrets, value: A, options: ValueRedaction = {}): A =>
  secrets.none ? value : (walk(secrets, value, options.keep) as A)
