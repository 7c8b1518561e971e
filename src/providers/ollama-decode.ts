/**
 * Ollama /api/chat stream objects (one JSON object a line) → ModelEvents. Pure and stateful per
 * response: thinking and text pass straight through; tool calls arrive whole and are released,
 * with usage and the finish reason, when the `done` object arrives.
 */
import type { FinishReason, OpaqueState, Usage } from "../session/items.ts"
import type { ModelEvent } from "./model-client.ts"
import { boundToolArguments, parseToolArguments } from "./tool-arguments.ts"

/** The fields this decoder reads; the SDK's ChatResponse fits it, plus the `id` newer servers give tool calls. */
export interface OllamaChunk {
  readonly message?: OllamaChunkMessage | null | undefined
  readonly done?: boolean | undefined
  readonly done_reason?: string | undefined
  readonly prompt_eval_count?: number | undefined
  readonly eval_count?: number | undefined
}

interface OllamaChunkMessage {
  readonly content?: string | null | undefined
  readonly thinking?: string | null | undefined
  readonly tool_calls?: ReadonlyArray<OllamaChunkToolCall> | null | undefined
}

interface OllamaChunkToolCall {
  readonly id?: string | undefined
  readonly function?: { readonly name?: string | undefined; readonly arguments?: unknown } | undefined
}

/** Marks reasoning as Ollama's: its text goes back in the `thinking` field, to the same model only. */
export const ollamaReasoningState: OpaqueState = { protocol: "ollama", data: null }

/** Ollama sends arguments as an object; a string (from a server that bends the protocol) is parsed like JSON text. */
const toolArguments = (value: unknown): unknown =>
  typeof value === "string" ? parseToolArguments(value) : value === undefined || value === null ? {} : boundToolArguments(value)

/** Ollama says "stop" after tool calls too; "load" and "unload" answer requests that generated nothing. */
export const mapDoneReason = (reason: string | undefined, madeToolCalls: boolean): FinishReason => {
  switch (reason) {
    case undefined:
    case "":
    case "stop":
      return madeToolCalls ? "tool_calls" : "stop"
    case "length":
      return "length"
    default:
      return "other"
  }
}

export const mapUsage = (chunk: OllamaChunk): Usage => ({
  inputTokens: chunk.prompt_eval_count ?? 0,
  outputTokens: chunk.eval_count ?? 0
})

export interface OllamaStreamDecoder {
  readonly push: (chunk: OllamaChunk) => ReadonlyArray<ModelEvent>
  /** The closing events, or undefined when the `done` object never arrived: the stream was cut. */
  readonly finish: () => ReadonlyArray<ModelEvent> | undefined
}

export const makeOllamaStreamDecoder = (newCallId: () => string): OllamaStreamDecoder => {
  const toolCalls: Array<Extract<ModelEvent, { type: "tool_call" }>> = []
  let reasoningOpen = false
  let last: OllamaChunk | undefined

  const closeReasoning = (events: Array<ModelEvent>) => {
    if (!reasoningOpen) return
    reasoningOpen = false
    events.push({ type: "reasoning_end", opaque: ollamaReasoningState })
  }

  const push = (chunk: OllamaChunk): ReadonlyArray<ModelEvent> => {
    const events: Array<ModelEvent> = []
    const message = chunk.message
    if (message?.thinking) {
      reasoningOpen = true
      events.push({ type: "reasoning_delta", text: message.thinking })
    }
    if (message?.content) {
      closeReasoning(events)
      events.push({ type: "text_delta", text: message.content })
    }
    if (message?.tool_calls && message.tool_calls.length > 0) {
      closeReasoning(events)
      for (const call of message.tool_calls) {
        toolCalls.push({
          type: "tool_call",
          id: call.id || newCallId(),
          name: call.function?.name ?? "",
          arguments: toolArguments(call.function?.arguments)
        })
      }
    }
    if (chunk.done === true) last = chunk
    return events
  }

  const finish = (): ReadonlyArray<ModelEvent> | undefined => {
    if (last === undefined) return undefined
    const events: Array<ModelEvent> = []
    closeReasoning(events)
    events.push(...toolCalls)
    events.push({ type: "usage", usage: mapUsage(last) })
    events.push({ type: "finish", reason: mapDoneReason(last.done_reason, toolCalls.length > 0) })
    return events
  }

  return { push, finish }
}
