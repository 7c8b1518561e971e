/**
 * Chat Completions stream chunks → ModelEvents. Pure and stateful per response: text and reasoning
 * pass straight through; tool calls are assembled from fragments and released, with usage and the
 * finish reason, when the stream ends.
 */
import type { FinishReason, Usage } from "../session/items.ts"
import type { ModelEvent } from "./model-client.ts"
import { parseToolArguments } from "./tool-arguments.ts"

/**
 * The chunk fields this decoder reads. The SDK's ChatCompletionChunk fits it; the reasoning fields
 * are what DeepSeek, vLLM, llama.cpp and similar servers add to the protocol.
 */
export interface ChatChunk {
  readonly choices?: ReadonlyArray<ChatChoice> | null | undefined
  readonly usage?: ChatUsage | null | undefined
}

interface ChatChoice {
  readonly index?: number | undefined
  readonly delta?: ChatDelta | null | undefined
  readonly finish_reason?: string | null | undefined
}

interface ChatDelta {
  readonly content?: string | null | undefined
  readonly reasoning_content?: string | null | undefined
  readonly reasoning?: string | null | undefined
  readonly tool_calls?: ReadonlyArray<ChatToolCallFragment> | null | undefined
}

interface ChatToolCallFragment {
  readonly index?: number | undefined
  readonly id?: string | null | undefined
  readonly function?: { readonly name?: string | null | undefined; readonly arguments?: string | null | undefined } | undefined
}

interface ChatUsage {
  readonly prompt_tokens?: number | undefined
  readonly completion_tokens?: number | undefined
  readonly prompt_tokens_details?: { readonly cached_tokens?: number | undefined } | null | undefined
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number | undefined } | null | undefined
}

interface PendingToolCall {
  id: string | undefined
  name: string
  arguments: string
}

/** Kept here for importers of this module; the depth-checked parser lives in tool-arguments.ts. */
export { parseToolArguments }

export const mapFinishReason = (reason: string): FinishReason => {
  switch (reason) {
    case "stop":
      return "stop"
    case "tool_calls":
    case "function_call":
      return "tool_calls"
    case "length":
      return "length"
    case "content_filter":
      return "content_filter"
    default:
      return "other"
  }
}

export const mapUsage = (usage: ChatUsage): Usage => {
  const cached = usage.prompt_tokens_details?.cached_tokens
  const reasoning = usage.completion_tokens_details?.reasoning_tokens
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning })
  }
}

export interface ChatStreamDecoder {
  readonly push: (chunk: ChatChunk) => ReadonlyArray<ModelEvent>
  /** The closing events, or undefined when no finish reason arrived: the stream was cut. */
  readonly finish: () => ReadonlyArray<ModelEvent> | undefined
}

export const makeChatStreamDecoder = (newCallId: () => string): ChatStreamDecoder => {
  const toolCalls = new Map<number, PendingToolCall>()
  let reasoningOpen = false
  let finishReason: string | undefined
  let usage: Usage | undefined

  const closeReasoning = (events: Array<ModelEvent>) => {
    if (!reasoningOpen) return
    reasoningOpen = false
    events.push({ type: "reasoning_end" })
  }

  /** Some servers omit the index: then a new id starts a new call and anything else continues the last one. */
  const indexOf = (fragment: ChatToolCallFragment): number => {
    if (fragment.index !== undefined) return fragment.index
    const known = [...toolCalls.keys()]
    const last = known.length === 0 ? undefined : Math.max(...known)
    if (!fragment.id) return last ?? 0
    const same = known.find((index) => toolCalls.get(index)?.id === fragment.id)
    return same ?? (last === undefined ? 0 : last + 1)
  }

  const addFragment = (fragment: ChatToolCallFragment) => {
    const index = indexOf(fragment)
    const pending = toolCalls.get(index) ?? { id: undefined, name: "", arguments: "" }
    toolCalls.set(index, pending)
    if (pending.id === undefined && fragment.id) pending.id = fragment.id
    if (pending.name === "" && fragment.function?.name) pending.name = fragment.function.name
    pending.arguments += fragment.function?.arguments ?? ""
  }

  const push = (chunk: ChatChunk): ReadonlyArray<ModelEvent> => {
    const events: Array<ModelEvent> = []
    if (chunk.usage) usage = mapUsage(chunk.usage)
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0)
    if (choice === undefined) return events
    const delta = choice.delta
    const reasoning = delta?.reasoning_content || delta?.reasoning
    if (reasoning) {
      reasoningOpen = true
      events.push({ type: "reasoning_delta", text: reasoning })
    }
    if (delta?.content) {
      closeReasoning(events)
      events.push({ type: "text_delta", text: delta.content })
    }
    if (delta?.tool_calls && delta.tool_calls.length > 0) {
      closeReasoning(events)
      for (const fragment of delta.tool_calls) addFragment(fragment)
    }
    if (choice.finish_reason) finishReason = choice.finish_reason
    return events
  }

  const finish = (): ReadonlyArray<ModelEvent> | undefined => {
    if (finishReason === undefined) return undefined
    const events: Array<ModelEvent> = []
    closeReasoning(events)
    for (const [, call] of [...toolCalls].sort(([a], [b]) => a - b)) {
      events.push({
        type: "tool_call",
        id: call.id ?? newCallId(),
        name: call.name,
        arguments: parseToolArguments(call.arguments)
      })
    }
    if (usage !== undefined) events.push({ type: "usage", usage })
    events.push({ type: "finish", reason: mapFinishReason(finishReason) })
    return events
  }

  return { push, finish }
}
