/**
 * A text that arrives in pieces (a model's answer or reasoning, delta by delta) with the secrets
 * replaced across the pieces: what redactingSink (redact.ts) does for a command's bytes, for
 * strings. Only the characters at the end of a piece that could begin a secret wait for the next
 * piece (or the end); everything else is passed on at once.
 */
import { redactText } from "./redact.ts"
import type { Secrets } from "./secrets.ts"

export interface RedactingText {
  /** What of `piece` (and of what was held before it) can be shown now, redacted; may be "". */
  readonly push: (piece: string) => string
  /** What was held back, redacted: the text ended. */
  readonly end: () => string
}

/** How many characters at the end of `text` are a beginning (not the whole) of some secret. */
const heldAtEnd = (secrets: Secrets, text: string): number => {
  let held = 0
  for (const secret of secrets.values) {
    const first = secret.charCodeAt(0)
    // From the longest candidate down: the first match is this secret's longest.
    for (let at = Math.max(0, text.length - secret.length + 1); text.length - at > held; at++) {
      if (text.charCodeAt(at) === first && secret.startsWith(text.slice(at))) {
        held = text.length - at
        break
      }
    }
  }
  return held
}

export const redactingText = (secrets: Secrets): RedactingText => {
  if (secrets.none) return { push: (piece) => piece, end: () => "" }
  let pending = ""
  return {
    push: (piece) => {
      const text = pending + piece
      const held = heldAtEnd(secrets, text)
      pending = text.slice(text.length - held)
      return held === text.length ? "" : redactText(secrets, text.slice(0, text.length - held))
    },
    end: () => {
      const rest = pending
      pending = ""
      return rest === "" ? "" : redactText(secrets, rest)
    }
  }
}
