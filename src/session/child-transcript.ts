/**
 * A subagent's transcript (issue 26), stored in its parent's document under the `task` call that
 * started it, so `sessions show`/`export` and a resumed session keep it. A child's own children
 * are stored in its record the same way. Optional everywhere: older files load unchanged.
 */
import * as Schema from "effect/Schema"
import { TranscriptItem, Usage } from "./items.ts"

export interface ChildTranscript {
  readonly agent: string
  /** 1-based: the task call's number within the parent's turn. */
  readonly index: number
  readonly description: string
  readonly status: "running" | "done" | "cancelled" | "failed"
  readonly mode: "plan" | "work"
  readonly model: string
  readonly items: ReadonlyArray<TranscriptItem>
  /** The child's model responses and its own children's, summed. */
  readonly usage: Usage
  readonly usageByModel?: { readonly [model: string]: Usage } | undefined
  readonly agents?: { readonly [callId: string]: ChildTranscript } | undefined
}

interface ChildTranscriptEncoded extends Omit<ChildTranscript, "items" | "usage" | "usageByModel" | "agents"> {
  readonly items: ReadonlyArray<typeof TranscriptItem.Encoded>
  readonly usage: typeof Usage.Encoded
  readonly usageByModel?: { readonly [model: string]: typeof Usage.Encoded } | undefined
  readonly agents?: { readonly [callId: string]: ChildTranscriptEncoded } | undefined
}

export const ChildTranscript: Schema.Schema<ChildTranscript, ChildTranscriptEncoded> = Schema.Struct({
  agent: Schema.String,
  index: Schema.Number,
  description: Schema.String,
  status: Schema.Literal("running", "done", "cancelled", "failed"),
  mode: Schema.Literal("plan", "work"),
  model: Schema.String,
  items: Schema.Array(TranscriptItem),
  usage: Usage,
  usageByModel: Schema.optional(Schema.Record({ key: Schema.String, value: Usage })),
  agents: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.suspend((): Schema.Schema<ChildTranscript, ChildTranscriptEncoded> => ChildTranscript) }))
})

/** The children of a document (or of a child), keyed by the id of the task call that started each. */
export const ChildTranscripts = Schema.Record({ key: Schema.String, value: ChildTranscript })
