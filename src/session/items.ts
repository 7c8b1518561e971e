/**
 * Crystal's own provider-neutral transcript records. Every adapter maps these to its wire format
 * and back; nothing outside providers/ knows a wire format.
 */
import * as Schema from "effect/Schema"

/** Provider-owned state that must travel back unchanged (signatures, encrypted reasoning, item ids). */
export const OpaqueState = Schema.Struct({
  protocol: Schema.String,
  data: Schema.Unknown
})
export type OpaqueState = typeof OpaqueState.Type

export const ImageRef = Schema.Struct({
  sha256: Schema.String,
  mime: Schema.String,
  marker: Schema.optional(Schema.String)
})
export type ImageRef = typeof ImageRef.Type

export const ReasoningPart = Schema.Struct({
  text: Schema.String,
  opaque: Schema.optional(OpaqueState)
})
export type ReasoningPart = typeof ReasoningPart.Type

export const ToolCall = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  /** Parsed JSON arguments as the model sent them. */
  arguments: Schema.Unknown,
  opaque: Schema.optional(OpaqueState)
})
export type ToolCall = typeof ToolCall.Type

export const Usage = Schema.Struct({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  /** Input read from the provider's prompt cache; part of inputTokens. */
  cachedInputTokens: Schema.optional(Schema.Number),
  /** Input written to the provider's prompt cache (billed above the input price); part of inputTokens. */
  cacheWriteTokens: Schema.optional(Schema.Number),
  /** Thinking the model did; part of outputTokens. */
  reasoningTokens: Schema.optional(Schema.Number)
})
export type Usage = typeof Usage.Type

export const FinishReason = Schema.Literal("stop", "tool_calls", "length", "content_filter", "cancelled", "other")
export type FinishReason = typeof FinishReason.Type

export const UserMessage = Schema.TaggedStruct("user", {
  id: Schema.String,
  text: Schema.String,
  images: Schema.optional(Schema.Array(ImageRef)),
  /** Written by the host, not typed by the operator (e.g. the todo reminder); sent like any user message. */
  synthetic: Schema.optional(Schema.Literal("reminder"))
})
export type UserMessage = typeof UserMessage.Type

export const AssistantMessage = Schema.TaggedStruct("assistant", {
  id: Schema.String,
  text: Schema.String,
  reasoning: Schema.optional(Schema.Array(ReasoningPart)),
  toolCalls: Schema.optional(Schema.Array(ToolCall)),
  /** "provider/model" that produced this message: reasoning state is only replayed to the same one. */
  model: Schema.String,
  finishReason: Schema.optional(FinishReason),
  usage: Schema.optional(Usage),
  /** The stream ended early (cancelled or cut): the text is what arrived before that. */
  incomplete: Schema.optional(Schema.Boolean)
})
export type AssistantMessage = typeof AssistantMessage.Type

export const ToolResult = Schema.TaggedStruct("tool_result", {
  id: Schema.String,
  callId: Schema.String,
  name: Schema.String,
  text: Schema.String,
  images: Schema.optional(Schema.Array(ImageRef)),
  isError: Schema.Boolean
})
export type ToolResult = typeof ToolResult.Type

/** A note for the operator and the record; never sent to the model. */
export const Note = Schema.TaggedStruct("note", {
  id: Schema.String,
  text: Schema.String
})
export type Note = typeof Note.Type

export const TodoStatus = Schema.Literal("pending", "in_progress", "completed")
export const TodoPriority = Schema.Literal("high", "medium", "low")

export const Todo = Schema.Struct({
  content: Schema.String,
  status: TodoStatus,
  priority: TodoPriority
})
export type Todo = typeof Todo.Type

/**
 * A compaction (SPEC S2): the items before `firstKeptId` are replaced, in what the model sees, by
 * `summary`; the transcript itself keeps them. Never sent as such: the request builder turns the
 * latest one into a context message (engine/context-view.ts).
 */
export const Compaction = Schema.TaggedStruct("compaction", {
  id: Schema.String,
  summary: Schema.String,
  /** The first item the model still sees verbatim; absent: none of the items before this one. */
  firstKeptId: Schema.optional(Schema.String),
  /** Paths written by edit/write in the summarised part, earlier compactions' included. */
  filesTouched: Schema.Array(Schema.String),
  /** The todo list when the summary was written. */
  todos: Schema.Array(Todo),
  trigger: Schema.Literal("manual", "auto"),
  /** What the operator asked of the summary (/compact INSTRUCTIONS). */
  instructions: Schema.optional(Schema.String),
  /**
   * The session's plan file when the summary was written (docs/plans.md): its path and its step
   * lines (`- [ ] …`, `- [~] …`, `- [x] …`) exactly as the file had them, kept outside the summary.
   */
  plan: Schema.optional(Schema.Struct({ path: Schema.String, steps: Schema.Array(Schema.String) })),
  /** Estimated tokens of the context before and after. */
  tokensBefore: Schema.Number,
  tokensAfter: Schema.Number
})
export type Compaction = typeof Compaction.Type

export const TranscriptItem = Schema.Union(UserMessage, AssistantMessage, ToolResult, Note, Compaction)
export type TranscriptItem = typeof TranscriptItem.Type
