/**
 * Responses API stream events → ModelEvents. Pure and stateful per response: text and reasoning
 * summaries pass straight through; each reasoning item ends with its replay state; each function
 * call is released complete when its output item is done; usage and the finish reason come from
 * the terminal event (response.completed / response.incomplete). response.failed and error events
 * are kept as the response's failure for the adapter to report.
 */
import * as Schema from "effect/Schema"
import type {
  ResponseOutputItem,
  ResponseReasoningItem,
  ResponseStreamEvent,
  ResponseUsage
} from "openai/resources/responses/responses"
import type { FinishReason, OpaqueState, Usage } from "../session/items.ts"
import type { ModelEvent } from "./model-client.ts"
import { parseToolArguments } from "./tool-arguments.ts"

export const responsesProtocol = "openai-responses"

/** What a reasoning part keeps for replay: the item as the model sent it, and where it stood in the output. */
export const ReasoningState = Schema.Struct({
  outputIndex: Schema.Number,
  item: Schema.Struct({
    type: Schema.Literal("reasoning"),
    id: Schema.String,
    summary: Schema.Array(Schema.Struct({ type: Schema.Literal("summary_text"), text: Schema.String })),
    encrypted_content: Schema.optional(Schema.NullOr(Schema.String))
  })
})
export type ReasoningState = typeof ReasoningState.Type

/** What a tool call keeps for replay: its output item id (fc_…) and where it stood in the output. */
export const CallState = Schema.Struct({
  outputIndex: Schema.Number,
  itemId: Schema.optional(Schema.String)
})
export type CallState = typeof CallState.Type

/** How the provider said the response failed, in its own words. */
export interface WireFailure {
  readonly code: string | undefined
  readonly message: string | undefined
}

interface PendingCall {
  arguments: string
}

export const mapResponsesUsage = (usage: ResponseUsage): Usage => {
  // Compatible servers may leave out the details objects the SDK types promise.
  const cached = usage.input_tokens_details?.cached_tokens as number | undefined
  const writes = usage.input_tokens_details?.cache_write_tokens as number | undefined
  const reasoning = usage.output_tokens_details?.reasoning_tokens as number | undefined
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(writes === undefined ? {} : { cacheWriteTokens: writes }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning })
  }
}

export const mapIncompleteReason = (reason: string | undefined): FinishReason => {
  switch (reason) {
    case "max_output_tokens":
      return "length"
    case "content_filter":
      return "content_filter"
    default:
      return "other"
  }
}

const reasoningState = (item: ResponseReasoningItem, outputIndex: number): OpaqueState => {
  const data: ReasoningState = {
    outputIndex,
    item: {
      type: "reasoning",
      id: item.id,
      summary: item.summary.map((part) => ({ type: "summary_text" as const, text: part.text })),
      ...(item.encrypted_content === undefined ? {} : { encrypted_content: item.encrypted_content })
    }
  }
  return { protocol: responsesProtocol, data }
}

const callState = (itemId: string | undefined, outputIndex: number): OpaqueState => {
  const data: CallState = { outputIndex, ...(itemId === undefined ? {} : { itemId }) }
  return { protocol: responsesProtocol, data }
}

export interface ResponsesStreamDecoder {
  readonly push: (event: ResponseStreamEvent) => ReadonlyArray<ModelEvent>
  /** True once response.completed or response.incomplete arrived. */
  readonly finished: () => boolean
  /** Set once response.failed or an error event arrived. */
  readonly failure: () => WireFailure | undefined
}

const none: ReadonlyArray<ModelEvent> = []

export const makeResponsesStreamDecoder = (): ResponsesStreamDecoder => {
  const calls = new Map<string, PendingCall>()
  /** Reasoning items that streamed text, so an empty one without replay state can be left out. */
  const reasoningWithText = new Set<string>()
  let sawToolCall = false
  let finished = false
  let failure: WireFailure | undefined

  const itemDone = (item: ResponseOutputItem, outputIndex: number): ReadonlyArray<ModelEvent> => {
    if (item.type === "reasoning") {
      const hasState = typeof item.encrypted_content === "string" && item.encrypted_content !== ""
      if (!hasState && !reasoningWithText.has(item.id)) return none
      return [{ type: "reasoning_end", opaque: reasoningState(item, outputIndex) }]
    }
    if (item.type === "function_call") {
      sawToolCall = true
      const streamed = item.id === undefined ? undefined : calls.get(item.id)?.arguments
      return [
        {
          type: "tool_call",
          id: item.call_id,
          name: item.name,
          arguments: parseToolArguments(item.arguments || (streamed ?? "")),
          opaque: callState(item.id, outputIndex)
        }
      ]
    }
    return none
  }

  const closing = (usage: ResponseUsage | undefined, reason: FinishReason): ReadonlyArray<ModelEvent> => {
    finished = true
    return [...(usage ? [{ type: "usage" as const, usage: mapResponsesUsage(usage) }] : []), { type: "finish", reason }]
  }

  const push = (event: ResponseStreamEvent): ReadonlyArray<ModelEvent> => {
    switch (event.type) {
      case "response.output_item.added":
        if (event.item.type === "function_call" && event.item.id !== undefined) {
          calls.set(event.item.id, { arguments: event.item.arguments })
        }
        return none
      case "response.reasoning_summary_part.added":
        // Summary parts are paragraphs of one reasoning text.
        return event.summary_index > 0 && reasoningWithText.has(event.item_id) ? [{ type: "reasoning_delta", text: "\n\n" }] : none
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (event.delta === "") return none
        reasoningWithText.add(event.item_id)
        return [{ type: "reasoning_delta", text: event.delta }]
      case "response.output_text.delta":
      case "response.refusal.delta":
        return event.delta === "" ? none : [{ type: "text_delta", text: event.delta }]
      case "response.function_call_arguments.delta": {
        const pending = calls.get(event.item_id)
        if (pending !== undefined) pending.arguments += event.delta
        return none
      }
      case "response.function_call_arguments.done": {
        const pending = calls.get(event.item_id)
        if (pending !== undefined) pending.arguments = event.arguments
        return none
      }
      case "response.output_item.done":
        return itemDone(event.item, event.output_index)
      case "response.completed":
        return closing(event.response.usage, sawToolCall ? "tool_calls" : "stop")
      case "response.incomplete":
        return closing(event.response.usage, mapIncompleteReason(event.response.incomplete_details?.reason))
      case "response.failed":
        failure = { code: event.response.error?.code, message: event.response.error?.message }
        return none
      case "error":
        failure = { code: event.code ?? undefined, message: event.message }
        return none
      default:
        return none
    }
  }

  return { push, finished: () => finished, failure: () => failure }
}
