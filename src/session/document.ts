import * as Schema from "effect/Schema"
import { approvalModes } from "../approval/policy.ts"
import { ChildTranscripts } from "./child-transcript.ts"
import { CheckpointRecord } from "./checkpoint-records.ts"
import { Todo, TranscriptItem, Usage } from "./items.ts"

export const Mode = Schema.Literal("plan", "work")
export type Mode = typeof Mode.Type

export const ApprovalModeSchema = Schema.Literal(...approvalModes)

/** A directory the operator granted with /access (SPEC A6). */
export const AccessGrant = Schema.Struct({
  dir: Schema.String,
  access: Schema.Literal("read", "write")
})
export type AccessGrant = typeof AccessGrant.Type

export { Todo, TodoPriority, TodoStatus } from "./items.ts"

export const SessionDocument = Schema.Struct({
  version: Schema.Literal(1),
  id: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  /** Real path of the workspace the session works in. */
  workspace: Schema.String,
  title: Schema.optional(Schema.String),
  /** The session this one was forked from (/fork). */
  parent: Schema.optional(Schema.String),
  /** "provider/model" used by the latest turn. */
  model: Schema.String,
  mode: Mode,
  approval: ApprovalModeSchema,
  access: Schema.optional(Schema.Array(AccessGrant)),
  /** The active system message, exactly as last sent. */
  system: Schema.optional(Schema.String),
  items: Schema.Array(TranscriptItem),
  /** The session's todo list (SPEC T2): it belongs to the session, not to a mode. */
  todos: Schema.optional(Schema.Array(Todo)),
  /** Sum over the session's model responses, side requests (title, review, compaction, /side) included. */
  usage: Usage,
  /** The same, by "provider/model" (what a price applies to); absent in sessions saved before it was kept. */
  usageByModel: Schema.optional(Schema.Record({ key: Schema.String, value: Usage })),
  /** The highest `[Image #N]` number given out: numbers are never reused, a failed attach leaves a gap. */
  imageCount: Schema.optional(Schema.Number),
  /** sha256 of images a provider refused: from then on they travel as their marker text only. */
  rejectedImages: Schema.optional(Schema.Array(Schema.String)),
  /** Subagents' transcripts, keyed by the id of the `task` call that started each (issue 26). */
  agents: Schema.optional(ChildTranscripts),
  /** The turns' checkpoints and the rewinds (docs/checkpoints.md); absent in sessions saved before them. */
  checkpoints: Schema.optional(Schema.Array(CheckpointRecord))
})
export type SessionDocument = typeof SessionDocument.Type

export const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0 }

export const addUsage = (total: Usage, more: Usage): Usage => ({
  inputTokens: total.inputTokens + more.inputTokens,
  outputTokens: total.outputTokens + more.outputTokens,
  ...(total.cachedInputTokens !== undefined || more.cachedInputTokens !== undefined
    ? { cachedInputTokens: (total.cachedInputTokens ?? 0) + (more.cachedInputTokens ?? 0) }
    : {}),
  ...(total.cacheWriteTokens !== undefined || more.cacheWriteTokens !== undefined
    ? { cacheWriteTokens: (total.cacheWriteTokens ?? 0) + (more.cacheWriteTokens ?? 0) }
    : {}),
  ...(total.reasoningTokens !== undefined || more.reasoningTokens !== undefined
    ? { reasoningTokens: (total.reasoningTokens ?? 0) + (more.reasoningTokens ?? 0) }
    : {})
})

/** The document with one model response's usage added to its totals. */
export const recordUsage = (doc: SessionDocument, model: string, usage: Usage): SessionDocument => ({
  ...doc,
  usage: addUsage(doc.usage, usage),
  usageByModel: { ...doc.usageByModel, [model]: addUsage(doc.usageByModel?.[model] ?? emptyUsage, usage) }
})
