/**
 * Known secrets never leave a tool: every occurrence in a tool output is replaced by `[redacted]`
 * before the output is stored, spilled, exported or sent. Two places apply it, each with the
 * session's secrets (its Redactor, redactor.ts):
 *   - src/engine/executor.ts, on every tool's result and every text a tool spills;
 *   - src/bash/spawn.ts, on the shell's output stream as it arrives, so that a background log read
 *     at any offset (bash_logs) or cut in the middle by a cap never holds a piece of a key.
 * A key cut by a cap (a long line, the dropped middle of a huge output) can still leave a fragment:
 * the first or last 12 characters of a secret, and whatever continues them, are redacted too.
 * Everything here is a pure function of the text and the secrets given.
 */
import { FRAGMENT, type Secrets } from "./secrets.ts"

export const REDACTED = "[redacted]"

/** Where a tool cut a text (the end, a `… [+N chars]` or `[… N bytes … dropped …]` note), a shorter piece is enough. */
const EDGE = 6
/** A secret's beginning, at least EDGE characters of it, just before a cut; or its end just after one. */
const CUT_BEFORE = /…|$/y
const CUT_AFTER = /(?:^|…\]?\n?)$/

/** Replaces each run of `text` that starts with the secret's first characters and continues it. */
const redactForward = (text: string, secret: string, anchor: string): string => {
  let out = ""
  let last = 0
  for (let at = text.indexOf(anchor); at >= 0; at = text.indexOf(anchor, at + FRAGMENT)) {
    let end = at + FRAGMENT
    while (end < text.length && end - at < secret.length && text[end] === secret[end - at]) end++
    out += text.slice(last, at) + REDACTED
    last = end
    at = end - FRAGMENT
  }
  return last === 0 ? text : out + text.slice(last)
}

/** The same backwards: a run ending with the secret's last characters. */
const redactBackward = (text: string, secret: string, anchor: string): string => {
  const parts: Array<string> = []
  let end = text.length
  for (let at = text.lastIndexOf(anchor); at >= 0; at = at === 0 ? -1 : text.lastIndexOf(anchor, at - 1)) {
    if (at + FRAGMENT > end) continue
    let start = at
    let index = secret.length - FRAGMENT
    while (start > 0 && index > 0 && text[start - 1] === secret[index - 1]) {
      start--
      index--
    }
    parts.unshift(REDACTED, text.slice(at + FRAGMENT, end))
    end = start
    if (start === 0) break
    at = start
  }
  return parts.length === 0 ? text : text.slice(0, end) + parts.join("")
}

/** `text` with every secret, and every cut piece of one at least 12 characters long, replaced. */
export const redactText = (secrets: Secrets, text: string): string => {
  if (secrets.none) return text
  let result = text
  for (const secret of secrets.values) {
    if (result.includes(secret)) result = result.split(secret).join(REDACTED)
  }
  for (const secret of secrets.values) {
    if (secret.length <= FRAGMENT) continue
    const head = secret.slice(0, FRAGMENT)
    if (result.includes(head)) result = redactForward(result, secret, head)
    const tail = secret.slice(-FRAGMENT)
    if (result.includes(tail)) result = redactBackward(result, secret, tail)
  }
  for (const secret of secrets.values) {
    if (secret.length > EDGE) result = redactCutEdges(result, secret)
  }
  return result
}

/**
 * Does `text` hold a secret, or any piece of one at least FRAGMENT characters long, wherever the
 * piece starts? Stricter than redactText, which takes a piece only at a secret's start or end
 * (where a cap cuts a key): this is for names (a tool's), which cannot be rewritten and are short,
 * so any piece is refused, and one composed from the middle of a key is caught too.
 */
export const holdsSecret = (secrets: Secrets, text: string): boolean => {
  if (secrets.none) return false
  if (secrets.values.some((secret) => text.includes(secret))) return true
  const pieces = secrets.pieces
  for (let at = 0; at + FRAGMENT <= text.length; at++) {
    if (pieces.has(text.slice(at, at + FRAGMENT))) return true
  }
  return false
}

/**
 * A JSON value (a tool's parameter schema) with the secrets redacted in its text; `fallback` when a
 * secret straddled JSON syntax and the redacted text no longer parses.
 */
export const redactJson = <A>(secrets: Secrets, value: A, fallback: A): A => {
  const text = JSON.stringify(value)
  if (text === undefined) return value
  const redacted = redactText(secrets, text)
  if (redacted === text) return value
  try {
    return JSON.parse(redacted) as A
  } catch {
    return fallback
  }
}

/** Pieces shorter than FRAGMENT but at least EDGE long where a cap cut the text. */
const redactCutEdges = (text: string, secret: string): string => {
  let result = text
  const head = secret.slice(0, EDGE)
  for (let at = result.indexOf(head); at >= 0; at = result.indexOf(head, at + 1)) {
    let end = at + EDGE
    while (end < result.length && end - at < secret.length && result[end] === secret[end - at]) end++
    CUT_BEFORE.lastIndex = end
    if (CUT_BEFORE.test(result)) result = result.slice(0, at) + REDACTED + result.slice(end)
  }
  const tail = secret.slice(-EDGE)
  for (let at = result.indexOf(tail); at >= 0; at = result.indexOf(tail, at + 1)) {
    let start = at
    let index = secret.length - EDGE
    while (start > 0 && index > 0 && result[start - 1] === secret[index - 1]) {
      start--
      index--
    }
    if (CUT_AFTER.test(result.slice(Math.max(0, start - 3), start))) result = result.slice(0, start) + REDACTED + result.slice(at + EDGE)
  }
  return result
}

export interface RedactingSink {
  readonly write: (chunk: Buffer) => void
  /** Passes on what was held back (the stream ended). */
  readonly flush: () => void
}

/** How many bytes at the end of `data` could be the start of a secret: held back until the next chunk. */
const partialAtEnd = (secrets: Secrets, data: Buffer): number => {
  for (let size = Math.min(secrets.longest - 1, data.length); size > 0; size--) {
    const end = data.subarray(data.length - size)
    if (secrets.buffers.some((secret) => secret.length > size && secret.subarray(0, size).equals(end))) return size
  }
  return 0
}

/**
 * A byte stream with the secrets replaced, across chunk boundaries: only the few bytes at the end
 * of a chunk that begin a secret wait for the next one, so output is not delayed otherwise. The
 * secrets are the ones given when the stream starts (a command's, when it is spawned).
 */
export const redactingSink = (secrets: Secrets, sink: (chunk: Buffer) => void): RedactingSink => {
  if (secrets.none) return { write: sink, flush: () => {} }
  let pending: Buffer | undefined
  return {
    write: (chunk) => {
      let data = pending === undefined ? chunk : Buffer.concat([pending, chunk])
      pending = undefined
      for (const secret of secrets.buffers) {
        if (data.indexOf(secret) < 0) continue
        const parts: Array<Buffer> = []
        let last = 0
        for (let at = data.indexOf(secret); at >= 0; at = data.indexOf(secret, last)) {
          parts.push(data.subarray(last, at), Buffer.from(REDACTED))
          last = at + secret.length
        }
        parts.push(data.subarray(last))
        data = Buffer.concat(parts)
      }
      const held = partialAtEnd(secrets, data)
      if (held > 0) {
        pending = Buffer.from(data.subarray(data.length - held))
        data = data.subarray(0, data.length - held)
      }
      if (data.length > 0) sink(data)
    },
    flush: () => {
      if (pending !== undefined) sink(pending)
      pending = undefined
    }
  }
}
