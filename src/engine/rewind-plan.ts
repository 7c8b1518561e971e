/**
 * Rewind planning (issue 25), the pure part: which record a rewind goes back to, the conversation
 * as it was just before that record, and the state each file returns to. Rewinding to record N
 * means "the workspace and the conversation as they were just before N": for a turn, before its
 * first change; for a rewind, before that rewind ran (which redoes what it undid).
 */
import * as Either from "effect/Either"
import type { CheckpointRecord } from "../session/checkpoint-records.ts"
import type { TranscriptItem } from "../session/items.ts"

export type RewindScope = "both" | "files" | "conversation"

/** The record `to` names, or the one-line reason it cannot be rewound to. */
export const rewindTarget = (records: ReadonlyArray<CheckpointRecord>, to: number, sessionId: string): Either.Either<CheckpointRecord, string> => {
  if (records.length === 0) return Either.left(`session ${sessionId} has no checkpoints (no turn ran since checkpoints were kept)`)
  const target = records.find((record) => record.turn === to)
  if (target !== undefined) return Either.right(target)
  const turns = records.map((record) => record.turn)
  return Either.left(`--to ${to}: session ${sessionId} has no turn ${to} (its turns are ${Math.min(...turns)}–${Math.max(...turns)}; crystal checkpoints list --session ${sessionId})`)
}

/** Records at or after `to` that hold a pair of snapshots, in order. */
export const snapshotted = (records: ReadonlyArray<CheckpointRecord>, to: number): ReadonlyArray<CheckpointRecord & { readonly before: string; readonly after: string }> =>
  records
    .filter((record): record is CheckpointRecord & { before: string; after: string } => record.turn >= to && record.before !== undefined && record.after !== undefined)
    .toSorted((a, b) => a.turn - b.turn)

export interface FileTarget {
  readonly path: string
  /** The snapshot that holds the file as it was before the first of these records changed it. */
  readonly from: string
  /** Index (in `snapshotted`) of the first record that changed it. */
  readonly first: number
}

/** Each file the records from `to` on changed, with the state it goes back to. */
export const fileTargets = (records: ReadonlyArray<CheckpointRecord & { readonly before: string }>): ReadonlyArray<FileTarget> => {
  const targets = new Map<string, FileTarget>()
  records.forEach((record, index) => {
    for (const file of record.files ?? []) if (!targets.has(file.path)) targets.set(file.path, { path: file.path, from: record.before, first: index })
  })
  return [...targets.values()].toSorted((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/**
 * The conversation as it was just before record `to`: undoes the records after it, newest first
 * (a turn: its messages go; a rewind: what it removed comes back). Left: why it cannot (a
 * compaction rewrote the messages since).
 */
export const conversationBefore = (
  items: ReadonlyArray<TranscriptItem>,
  records: ReadonlyArray<CheckpointRecord>,
  to: number
): Either.Either<ReadonlyArray<TranscriptItem>, string> => {
  let current = items
  for (const record of records.filter((entry) => entry.turn >= to).toSorted((a, b) => b.turn - a.turn)) {
    if (record.kind === "turn") {
      const at = current.findIndex((item) => item.id === record.messageId)
      if (at < 0) return Either.left(`turn ${record.turn}'s messages are no longer in the conversation (compacted since?); rewind its files only with --files-only`)
      current = current.slice(0, at)
    } else if (record.keptItems !== undefined) {
      if (current.length < record.keptItems) return Either.left(`rewind ${record.turn}'s conversation cannot be undone: the conversation was compacted since; use --files-only`)
      current = [...current.slice(0, record.keptItems), ...(record.removedItems ?? [])]
    }
  }
  return Either.right(current)
}

/** How a rewind changes the conversation, recorded so that rewinding to the rewind brings it back. */
export const conversationChange = (before: ReadonlyArray<TranscriptItem>, after: ReadonlyArray<TranscriptItem>) => {
  let kept = 0
  while (kept < before.length && kept < after.length && before[kept]?.id === after[kept]?.id) kept++
  return { keptItems: kept, removedItems: before.slice(kept), restoredItems: after.slice(kept) }
}

/** The records after a rewind to `to` by record `by`: which now stand undone, which stand again. */
export const markRewound = (records: ReadonlyArray<CheckpointRecord>, to: number, by: number, scope: RewindScope): ReadonlyArray<CheckpointRecord> =>
  records.map((record) => {
    let next: CheckpointRecord = record
    const target = records.find((entry) => entry.turn === to)
    // Rewinding to a rewind redoes what it undid.
    if (target?.kind === "rewind") {
      if (scope !== "conversation" && next.filesUndoneBy === to) {
        const { filesUndoneBy: _files, ...rest } = next
        next = rest
      }
      if (scope !== "files" && next.conversationUndoneBy === to) {
        const { conversationUndoneBy: _conversation, ...rest } = next
        next = rest
      }
    }
    if (record.turn < to) return next
    if (scope !== "conversation" && next.filesUndoneBy === undefined && next.before !== undefined) next = { ...next, filesUndoneBy: by }
    const hasConversation = next.kind === "turn" || next.keptItems !== undefined
    if (scope !== "files" && hasConversation && next.conversationUndoneBy === undefined) next = { ...next, conversationUndoneBy: by }
    return next
  })
