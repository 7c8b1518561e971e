/**
 * Anthropic Messages stream events → ModelEvents. Pure and stateful per response: text and
 * thinking deltas pass straight through; a thinking block's end carries its signature (or a
 * redacted block's data) as opaque state; a tool_use block is released, with its input JSON
 * assembled from the fragments, when the block stops; usage and the stop reason when the message does.
 */
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages"
import type { FinishReason, OpaqueState, Usage } from "../session/items.ts"
import type { ModelEvent } from "./model-client.ts"
import { boundToolArguments, parseToolArguments } from "./tool-arguments.ts"

export const anthropicProtocol = "anthropic"

/** What a reasoning part keeps to be replayed: the thinking text travels in the part itself. */
export type AnthropicReasoningState =
  | { readonly type: "thinking"; readonly signature: string }
  | { readonly type: "redacted_thinking"; readonly data: string }

const opaque = (data: AnthropicReasoningState): OpaqueState => ({ protocol: anthropicProtocol, data })

export const mapStopReason = (reason: string | null): FinishReason => {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop"
    case "tool_use":
      return "tool_calls"
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length"
    case "refusal":
      return "content_filter"
    default:
      // pause_turn (a server tool paused the turn) and anything newer.
      return "other"
  }
}

type BlockStart = Extract<RawMessageStreamEvent, { type: "content_block_start" }>["content_block"]
type BlockDelta = Extract<RawMessageStreamEvent, { type: "content_block_delta" }>["delta"]

type OpenBlock =
  | { readonly kind: "thinking"; signature: string }
  | { readonly kind: "redacted_thinking"; readonly data: string }
  | { readonly kind: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown; json: string }
  | { readonly kind: "other" }

/** The usage fields this decoder reads, as message_start and message_delta carry them (any may be null). */
interface WireUsage {
  readonly input_tokens?: number | null | undefined
  readonly cache_creation_input_tokens?: number | null | undefined
  readonly cache_read_input_tokens?: number | null | undefined
  readonly output_tokens?: number | null | undefined
  readonly output_tokens_details?: { readonly thinking_tokens?: number | null | undefined } | null | undefined
}

/**
 * Latest value of each count (message_delta counts are cumulative). The wire counts cache reads and
 * writes apart from `input_tokens`; Crystal's input count includes them, its cached count is the reads,
 * its cache-write count the writes.
 */
class UsageTally {
  private input: number | undefined
  private cacheWrites: number | undefined
  private cacheReads: number | undefined
  private output = 0
  private thinking: number | undefined

  add(usage: WireUsage | null | undefined): void {
    if (!usage) return
    this.input = usage.input_tokens ?? this.input
    this.cacheWrites = usage.cache_creation_input_tokens ?? this.cacheWrites
    this.cacheReads = usage.cache_read_input_tokens ?? this.cacheReads
    this.output = usage.output_tokens ?? this.output
    this.thinking = usage.output_tokens_details?.thinking_tokens ?? this.thinking
  }

  result(): Usage | undefined {
    if (this.input === undefined) return undefined
    return {
      inputTokens: this.input + (this.cacheWrites ?? 0) + (this.cacheReads ?? 0),
      outputTokens: this.output,
      ...(this.cacheReads === undefined ? {} : { cachedInputTokens: this.cacheReads }),
      ...(this.cacheWrites === undefined ? {} : { cacheWriteTokens: this.cacheWrites }),
      ...(this.thinking === undefined ? {} : { reasoningTokens: this.thinking })
    }
  }
}

/** A tool_use start usually has `input: {}` and the JSON follows in fragments; some servers send it whole. */
const startInput = (input: unknown): unknown =>
  typeof input === "object" && input !== null && !Array.isArray(input) ? input : {}

const closeBlock = (block: OpenBlock): ReadonlyArray<ModelEvent> => {
  switch (block.kind) {
    case "thinking":
      // No signature: the block cannot be replayed (the stream ended early, or a server that signs nothing).
      return [
        block.signature === ""
          ? { type: "reasoning_end" }
          : { type: "reasoning_end", opaque: opaque({ type: "thinking", signature: block.signature }) }
      ]
    case "redacted_thinking":
      return [{ type: "reasoning_end", opaque: opaque({ type: "redacted_thinking", data: block.data }) }]
    case "tool_use":
      return [
        {
          type: "tool_call",
          id: block.id,
          name: block.name,
          arguments: block.json === "" ? boundToolArguments(startInput(block.input)) : parseToolArguments(block.json)
        }
      ]
    case "other":
      return []
  }
}

export interface AnthropicStreamDecoder {
  readonly push: (event: RawMessageStreamEvent) => ReadonlyArray<ModelEvent>
  /** The closing events, or undefined when message_stop never arrived: the stream was cut. */
  readonly finish: () => ReadonlyArray<ModelEvent> | undefined
}

export const makeAnthropicStreamDecoder = (newCallId: () => string): AnthropicStreamDecoder => {
  const blocks = new Map<number, OpenBlock>()
  const usage = new UsageTally()
  let stopReason: string | null = null
  let stopped = false

  const start = (index: number, block: BlockStart): ReadonlyArray<ModelEvent> => {
    switch (block.type) {
      case "text":
        return block.text === "" ? [] : [{ type: "text_delta", text: block.text }]
      case "thinking":
        blocks.set(index, { kind: "thinking", signature: block.signature ?? "" })
        return block.thinking === "" ? [] : [{ type: "reasoning_delta", text: block.thinking }]
      case "redacted_thinking":
        blocks.set(index, { kind: "redacted_thinking", data: block.data })
        return []
      case "tool_use":
        blocks.set(index, { kind: "tool_use", id: block.id || newCallId(), name: block.name, input: block.input, json: "" })
        return []
      default:
        // Server tools (web search, code execution) run on Anthropic's side: nothing for the engine to do.
        blocks.set(index, { kind: "other" })
        return []
    }
  }

  const delta = (index: number, change: BlockDelta): ReadonlyArray<ModelEvent> => {
    const block = blocks.get(index)
    switch (change.type) {
      case "text_delta":
        return change.text === "" ? [] : [{ type: "text_delta", text: change.text }]
      case "thinking_delta":
        return change.thinking === "" ? [] : [{ type: "reasoning_delta", text: change.thinking }]
      case "signature_delta":
        if (block?.kind === "thinking") block.signature += change.signature
        return []
      case "input_json_delta":
        if (block?.kind === "tool_use") block.json += change.partial_json
        return []
      default:
        return []
    }
  }

  const stop = (index: number): ReadonlyArray<ModelEvent> => {
    const block = blocks.get(index)
    if (block === undefined) return []
    blocks.delete(index)
    return closeBlock(block)
  }

  const push = (event: RawMessageStreamEvent): ReadonlyArray<ModelEvent> => {
    switch (event.type) {
      case "message_start":
        usage.add(event.message.usage)
        return []
      case "content_block_start":
        return start(event.index, event.content_block)
      case "content_block_delta":
        return delta(event.index, event.delta)
      case "content_block_stop":
        return stop(event.index)
      case "message_delta":
        stopReason = event.delta.stop_reason ?? stopReason
        usage.add(event.usage)
        return []
      case "message_stop":
        stopped = true
        return []
      default:
        // Newer event types: the API's versioning policy says to ignore what we do not know.
        return []
    }
  }

  const finish = (): ReadonlyArray<ModelEvent> | undefined => {
    if (!stopped) return undefined
    const events: Array<ModelEvent> = []
    // A well-formed stream stopped every block already; a lenient server may not have.
    for (const index of [...blocks.keys()].sort((a, b) => a - b)) events.push(...stop(index))
    const total = usage.result()
    if (total !== undefined) events.push({ type: "usage", usage: total })
    events.push({ type: "finish", reason: mapStopReason(stopReason) })
    return events
  }

  return { push, finish }
}
