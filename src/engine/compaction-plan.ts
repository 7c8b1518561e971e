/**
 * Which part of the conversation a compaction summarises (SPEC S2), as a pure decision: the most
 * recent messages that fit `keepRecentTokens` stay verbatim, everything before them in the model's
 * current view is summarised. The kept part always starts at a message, never at a tool result
 * cut off from its call (providers reject those).
 */
import type { Compaction, TranscriptItem } from "../session/items.ts"
import { keptItems, latestCompaction } from "./context-view.ts"
import { estimateItemTokens } from "./token-estimate.ts"

export interface CompactionPlan {
  readonly prior: Compaction | undefined
  /** The items the new summary replaces (the prior summary goes in through its own slot). */
  readonly summarized: ReadonlyArray<TranscriptItem>
  readonly firstKeptId: string | undefined
  readonly keptCount: number
  readonly filesTouched: ReadonlyArray<string>
}

const sentToModel = (item: TranscriptItem): boolean => item._tag !== "note" && item._tag !== "compaction"
const startsMessage = (item: TranscriptItem | undefined): boolean => item?._tag === "user" || item?._tag === "assistant"

/** Paths of the successful calls of `fileTools` (edit, write), in first-touched order, after the earlier ones. */
export const filesTouched = (
  items: ReadonlyArray<TranscriptItem>,
  fileTools: ReadonlySet<string>,
  earlier: ReadonlyArray<string> = []
): ReadonlyArray<string> => {
  const failed = new Map<string, boolean>()
  for (const item of items) if (item._tag === "tool_result") failed.set(item.callId, item.isError)
  const files = new Set(earlier)
  for (const item of items) {
    if (item._tag !== "assistant") continue
    for (const call of item.toolCalls ?? []) {
      if (!fileTools.has(call.name) || failed.get(call.id) !== false) continue
      const args = call.arguments
      if (typeof args === "object" && args !== null && "path" in args && typeof args.path === "string") files.add(args.path)
    }
  }
  return [...files]
}

/** Undefined when there is nothing the model sees that a summary could replace. */
export const planCompaction = (
  items: ReadonlyArray<TranscriptItem>,
  keepRecentTokens: number,
  fileTools: ReadonlySet<string>
): CompactionPlan | undefined => {
  const prior = latestCompaction(items)?.record
  const { kept: candidates } = keptItems(items)
  let cut = candidates.length
  let used = 0
  for (let index = candidates.length - 1; index >= 0; index--) {
    const item = candidates[index]
    if (item === undefined) continue
    used += estimateItemTokens(item)
    if (used > keepRecentTokens) break
    cut = index
  }
  while (cut < candidates.length && !startsMessage(candidates[cut])) cut++
  // A turn that starts over the threshold keeps the operator's new message verbatim, whatever the budget.
  const last = candidates.at(-1)
  if (cut === candidates.length && last?._tag === "user" && last.synthetic === undefined) cut = candidates.length - 1
  // Everything fits the budget (a /compact early on, or a context the usage counts say is large):
  // keep the operator's latest message and what followed it, or failing that summarise it all.
  if (!candidates.slice(0, cut).some(sentToModel)) cut = candidates.findLastIndex((item) => item._tag === "user" && item.synthetic === undefined)
  if (!candidates.slice(0, Math.max(cut, 0)).some(sentToModel)) cut = candidates.length
  const summarized = candidates.slice(0, cut)
  if (!summarized.some(sentToModel)) return undefined
  const kept = candidates.slice(cut)
  return {
    prior,
    summarized,
    firstKeptId: kept[0]?.id,
    keptCount: kept.filter(sentToModel).length,
    filesTouched: filesTouched(summarized, fileTools, prior?.filesTouched)
  }
}
