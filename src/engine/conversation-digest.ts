/**
 * A plain-text digest of the transcript for a side request that must judge the conversation
 * without replaying it (the reviewer's {{conversation}} slot): user and assistant text, tool calls
 * with their arguments, tool results, oldest first and newest last. Long entries are cut, and when
 * the whole does not fit the oldest entries go first, except the operator's latest message, which
 * says what they asked for and is always kept. Host notes are never sent to a model; reminders the
 * host wrote are not the operator's words, so neither appears.
 */
import type { TranscriptItem } from "../session/items.ts"
import { plural } from "../text/plural.ts"

export interface DigestLimits {
  /** The whole digest, roughly; the operator's latest message is kept even past it. */
  readonly maxChars: number
  readonly userChars: number
  readonly assistantChars: number
  readonly toolCallChars: number
  readonly toolResultChars: number
}

export const defaultDigestLimits: DigestLimits = {
  maxChars: 16_000,
  userChars: 4_000,
  assistantChars: 2_000,
  toolCallChars: 600,
  toolResultChars: 600
}

/** `text` cut to `max` characters (never inside a surrogate pair), saying how much was left out. */
export const truncateText = (text: string, max: number): string => {
  if (text.length <= max) return text
  let end = Math.max(0, max)
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}… [${text.length - end} more characters]`
}

/** Tool arguments as compact JSON (a string the model sent that was not JSON stays as it is). */
export const argumentsText = (args: unknown): string => {
  if (typeof args === "string") return args
  try {
    return JSON.stringify(args ?? {}) ?? "{}"
  } catch {
    return String(args)
  }
}

interface Entry {
  readonly text: string
  /** The operator's own message (not a host reminder). */
  readonly fromOperator: boolean
}

const entriesOf = (item: TranscriptItem, limits: DigestLimits): ReadonlyArray<Entry> => {
  switch (item._tag) {
    case "user": {
      if (item.synthetic !== undefined) return []
      const images = item.images === undefined || item.images.length === 0 ? "" : ` [${plural(item.images.length, "image")}]`
      return [{ text: `[user] ${truncateText(item.text, limits.userChars)}${images}`, fromOperator: true }]
    }
    case "assistant": {
      const entries: Array<Entry> = []
      if (item.text.trim() !== "") entries.push({ text: `[assistant] ${truncateText(item.text.trim(), limits.assistantChars)}`, fromOperator: false })
      for (const call of item.toolCalls ?? []) {
        entries.push({ text: `[assistant calls ${call.name}] ${truncateText(argumentsText(call.arguments), limits.toolCallChars)}`, fromOperator: false })
      }
      return entries
    }
    case "tool_result":
      return [
        {
          text: `[${item.name} ${item.isError ? "failed" : "result"}] ${truncateText(item.text.trim(), limits.toolResultChars)}`,
          fromOperator: false
        }
      ]
    case "note":
    case "compaction":
      return []
  }
}

export const conversationDigest = (items: ReadonlyArray<TranscriptItem>, limits: DigestLimits = defaultDigestLimits): string => {
  const entries = items.flatMap((item) => entriesOf(item, limits))
  if (entries.length === 0) return "(no conversation yet)"
  const latestOperator = entries.findLastIndex((entry) => entry.fromOperator)
  // Newest first until the budget is spent; the operator's latest message is kept regardless.
  const kept = new Set<number>()
  let used = latestOperator >= 0 ? (entries[latestOperator]?.text.length ?? 0) + 1 : 0
  if (latestOperator >= 0) kept.add(latestOperator)
  for (let index = entries.length - 1; index >= 0; index--) {
    if (index === latestOperator) continue
    const size = (entries[index]?.text.length ?? 0) + 1
    if (used + size > limits.maxChars) break
    used += size
    kept.add(index)
  }
  const lines: Array<string> = []
  let skipped = 0
  entries.forEach((entry, index) => {
    if (!kept.has(index)) {
      skipped++
      return
    }
    if (skipped > 0) lines.push(`[… ${plural(skipped, "earlier entry", "earlier entries")} left out]`)
    skipped = 0
    lines.push(entry.text)
  })
  return lines.join("\n")
}
