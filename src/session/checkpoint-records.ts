/**
 * What a session remembers of its checkpoints (issue 25): one record per turn (and per rewind,
 * which is itself a checkpoint), numbered from 1 and never renumbered. The snapshots live in
 * Crystal's checkpoint store (src/checkpoints); the session keeps only their ids, the files each
 * turn changed, and what a rewind took out of the conversation so a later rewind can bring it back.
 */
import * as Schema from "effect/Schema"
import { Todo, TranscriptItem } from "./items.ts"

export const ChangedFile = Schema.Struct({
  path: Schema.String,
  kind: Schema.Literal("added", "modified", "deleted"),
  added: Schema.Number,
  removed: Schema.Number,
  binary: Schema.Boolean
})
export type ChangedFile = typeof ChangedFile.Type

export const CheckpointRecord = Schema.Struct({
  turn: Schema.Number,
  kind: Schema.Literal("turn", "rewind"),
  /** The turn's user message (absent for a rewind). */
  messageId: Schema.optional(Schema.String),
  /** The prompt's first line, or "rewind to turn N". */
  prompt: Schema.String,
  at: Schema.String,
  /** The workspace before the turn's first change / after the turn; absent when the turn changed nothing it could see. */
  before: Schema.optional(Schema.String),
  after: Schema.optional(Schema.String),
  files: Schema.optional(Schema.Array(ChangedFile)),
  /** Files left out of the snapshots for their size. */
  skipped: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, bytes: Schema.Number }))),
  /** A rewind: the turn it went back to, and the items it took out of the conversation (after `keptItems` items). */
  to: Schema.optional(Schema.Number),
  keptItems: Schema.optional(Schema.Number),
  removedItems: Schema.optional(Schema.Array(TranscriptItem)),
  /**
   * The todo list just before this record: a turn's as it started, a rewind's as the rewind found it
   * (set only when it rewound the conversation). A rewind of the conversation to this record puts it back.
   */
  todos: Schema.optional(Schema.Array(Todo)),
  /** The rewind that undid this record's files / conversation (absent while it stands). */
  filesUndoneBy: Schema.optional(Schema.Number),
  conversationUndoneBy: Schema.optional(Schema.Number)
})
export type CheckpointRecord = typeof CheckpointRecord.Type

/** The prompt's first line, as lists show it. */
export const promptLine = (text: string): string => (text.trim().split("\n")[0] ?? "").slice(0, 200)

export const nextTurnNumber = (records: ReadonlyArray<CheckpointRecord>): number =>
  records.reduce((highest, record) => Math.max(highest, record.turn), 0) + 1
