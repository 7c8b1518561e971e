/**
 * A session as it may leave memory: every text of the document (the operator's and the model's
 * messages, reasoning, tool-call arguments and names, tool results, notes, compaction summaries,
 * todos, the title, the system text) with the session's secrets redacted (src/secrets). The
 * session file, forks and exports are written from this; the conversation in memory keeps what
 * was said, so a running session sends the provider back exactly what it received (docs/security.md,
 * "The model's own text").
 *
 * Provider state (`opaque`: signatures, encrypted reasoning, item ids) is never changed. A
 * reasoning part whose text had to be redacted is stored without it: its signature covers the
 * text as it was, and a resumed session replaying it with another text would have every request
 * refused; without state, each adapter leaves the part out of requests (providers/*-encode.ts).
 */
import { redactValue } from "../secrets/redact-value.ts"
import type { Secrets } from "../secrets/secrets.ts"
import type { ChildTranscript } from "./child-transcript.ts"
import type { SessionDocument } from "./document.ts"
import type { ReasoningPart, TranscriptItem } from "./items.ts"

type ChildTranscripts = { readonly [callId: string]: ChildTranscript }

const keepOpaque: ReadonlySet<string> = new Set(["opaque"])

const unsigned = (redacted: ReadonlyArray<ReasoningPart>, original: ReadonlyArray<ReasoningPart>): ReadonlyArray<ReasoningPart> =>
  redacted.map((part, index) => (part.opaque !== undefined && part.text !== original[index]?.text ? { text: part.text } : part))

/** One item with the secrets redacted; `item` itself when it held none. */
export const redactItem = <I extends TranscriptItem>(secrets: Secrets, item: I): I => {
  const redacted = redactValue(secrets, item, { keep: keepOpaque })
  if (redacted === item || redacted._tag !== "assistant" || item._tag !== "assistant") return redacted
  if (redacted.reasoning === undefined || item.reasoning === undefined || redacted.reasoning === item.reasoning) return redacted
  // The same item with other reasoning parts: an assistant message, which is what I is here.
  return { ...redacted, reasoning: unsigned(redacted.reasoning, item.reasoning) } as I
}

/** Subagents' transcripts (issue 26): each item as the session's own, provider state kept. */
const redactChildren = (secrets: Secrets, children: ChildTranscripts): ChildTranscripts =>
  Object.fromEntries(
    Object.entries(children).map(([callId, child]) => {
      const { items, agents, ...fields } = child
      return [
        callId,
        {
          ...redactValue(secrets, fields),
          items: items.map((item) => redactItem(secrets, item)),
          ...(agents === undefined ? {} : { agents: redactChildren(secrets, agents) })
        }
      ]
    })
  )

const redactFields = (secrets: Secrets, doc: SessionDocument, items: ReadonlyArray<TranscriptItem>): SessionDocument => {
  const { items: _items, agents, ...fields } = doc
  const redacted = redactValue(secrets, fields)
  if (redacted === fields && items === doc.items && agents === undefined) return doc
  return { ...redacted, items, ...(agents === undefined ? {} : { agents: redactChildren(secrets, agents) }) }
}

/**
 * The document with the secrets redacted, for one saved again and again (a session's, after every
 * step): items are immutable, so each is redacted once and remembered until the secrets change.
 */
export const makeDocumentRedaction = (): ((secrets: Secrets, doc: SessionDocument) => SessionDocument) => {
  let known: Secrets | undefined
  let done = new WeakMap<TranscriptItem, TranscriptItem>()
  const cached = (secrets: Secrets, item: TranscriptItem): TranscriptItem => {
    const seen = done.get(item)
    if (seen !== undefined) return seen
    const redacted = redactItem(secrets, item)
    done.set(item, redacted)
    return redacted
  }
  return (secrets, doc) => {
    if (secrets.none) return doc
    if (secrets !== known) {
      known = secrets
      done = new WeakMap()
    }
    const items = doc.items.map((item) => cached(secrets, item))
    return redactFields(secrets, doc, items.every((item, index) => item === doc.items[index]) ? doc.items : items)
  }
}

/** The document with the secrets redacted, once (`sessions show`, an export). */
export const redactDocument = (secrets: Secrets, doc: SessionDocument): SessionDocument => makeDocumentRedaction()(secrets, doc)
