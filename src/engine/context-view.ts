/**
 * What the model sees of a transcript (SPEC S2): everything, until a compaction; then the latest
 * compaction's summary as one message, followed by the items it kept verbatim and everything that
 * came after it. The transcript on disk keeps every item; only requests are built from this view.
 */
import { formatTodos } from "../session/todos.ts"
import type { Compaction, TranscriptItem, UserMessage } from "../session/items.ts"

export interface ContextView {
  readonly items: ReadonlyArray<TranscriptItem>
  /** Index in `items` of the first item made after the latest compaction (0 without one). */
  readonly measuredFrom: number
  readonly compaction: Compaction | undefined
}

export const latestCompaction = (items: ReadonlyArray<TranscriptItem>): { readonly at: number; readonly record: Compaction } | undefined => {
  for (let at = items.length - 1; at >= 0; at--) {
    const item = items[at]
    if (item?._tag === "compaction") return { at, record: item }
  }
  return undefined
}

/** The context message that stands for everything a compaction summarised. */
export const summaryMessage = (compaction: Compaction, keptVerbatim: boolean): UserMessage => {
  const parts = [
    `[Context from Crystal, not from the operator] The earlier part of this conversation was compacted into the summary below. ` +
      (keptVerbatim ? "The most recent messages follow verbatim." : "Continue the work from here."),
    compaction.summary.trim()
  ]
  if (compaction.filesTouched.length > 0) {
    parts.push(`Files changed (edit/write) in the summarised part:\n${compaction.filesTouched.map((file) => `- ${file}`).join("\n")}`)
  }
  if (compaction.todos.length > 0) {
    parts.push(`The todo list when the summary was written (todoread shows the current one):\n${formatTodos(compaction.todos)}`)
  }
  if (compaction.plan !== undefined) {
    const steps = compaction.plan.steps.length === 0 ? "(it has no steps)" : compaction.plan.steps.join("\n")
    parts.push(
      `The session's plan file is ${compaction.plan.path} (the plan tool shows it whole and marks its steps). Its steps when the summary was written, verbatim:\n${steps}`
    )
  }
  return { _tag: "user", id: compaction.id, text: parts.join("\n\n") }
}

/** The items after the latest compaction's cut, compaction records left out; all items without one. */
export const keptItems = (items: ReadonlyArray<TranscriptItem>): { readonly kept: ReadonlyArray<TranscriptItem>; readonly beforeRecord: number } => {
  const latest = latestCompaction(items)
  if (latest === undefined) return { kept: items, beforeRecord: 0 }
  const { at, record } = latest
  const found = record.firstKeptId === undefined ? -1 : items.findIndex((item) => item.id === record.firstKeptId)
  const start = found >= 0 && found < at ? found : at + 1
  const before = items.slice(start, at).filter((item) => item._tag !== "compaction")
  const after = items.slice(at + 1).filter((item) => item._tag !== "compaction")
  return { kept: [...before, ...after], beforeRecord: before.length }
}

export const contextView = (items: ReadonlyArray<TranscriptItem>): ContextView => {
  const latest = latestCompaction(items)
  if (latest === undefined) return { items, measuredFrom: 0, compaction: undefined }
  const compaction = latest.record
  const { kept, beforeRecord } = keptItems(items)
  return { items: [summaryMessage(compaction, beforeRecord > 0), ...kept], measuredFrom: 1 + beforeRecord, compaction }
}
