/** Crystal's request → the Chat Completions request body. Pure; SDK types only. */
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool
} from "openai/resources/chat/completions"
import type { AssistantMessage, ToolCall, TranscriptItem } from "../session/items.ts"
import type { ModelRequest, ToolDefinition } from "./model-client.ts"

/** Arguments the model sent as invalid JSON were stored as the raw string: send them back unchanged. */
const encodeArguments = (args: unknown): string => (typeof args === "string" ? args : (JSON.stringify(args) ?? "{}"))

const encodeToolCall = (call: ToolCall): ChatCompletionMessageFunctionToolCall => ({
  id: call.id,
  type: "function",
  function: { name: call.name, arguments: encodeArguments(call.arguments) }
})

/** A stream cut before anything useful arrived leaves nothing worth replaying. */
const isEmptyRemnant = (message: AssistantMessage): boolean =>
  message.incomplete === true && message.text === "" && (message.toolCalls ?? []).length === 0

const encodeAssistant = (message: AssistantMessage): ChatCompletionMessageParam => {
  const toolCalls = message.toolCalls ?? []
  if (toolCalls.length === 0) return { role: "assistant", content: message.text }
  return {
    role: "assistant",
    content: message.text === "" ? null : message.text,
    tool_calls: toolCalls.map(encodeToolCall)
  }
}

/** Reasoning is not replayed on this protocol; notes are for the operator only. */
const encodeItem = (item: TranscriptItem): ReadonlyArray<ChatCompletionMessageParam> => {
  switch (item._tag) {
    case "user":
      return [{ role: "user", content: item.text }]
    case "assistant":
      return isEmptyRemnant(item) ? [] : [encodeAssistant(item)]
    case "tool_result":
      return [{ role: "tool", tool_call_id: item.callId, content: item.text }]
    case "note":
      return []
  }
}

export const chatMessages = (system: string, items: ReadonlyArray<TranscriptItem>): Array<ChatCompletionMessageParam> => [
  ...(system === "" ? [] : [{ role: "system" as const, content: system }]),
  ...items.flatMap(encodeItem)
]

export const chatTools = (tools: ReadonlyArray<ToolDefinition>): Array<ChatCompletionTool> =>
  tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: { ...tool.inputSchema } }
  }))

export const chatRequestBody = (request: ModelRequest): ChatCompletionCreateParamsStreaming => ({
  model: request.model.id,
  messages: chatMessages(request.system, request.items),
  ...(request.tools.length === 0 ? {} : { tools: chatTools(request.tools) }),
  max_tokens: request.model.capabilities.maxOutputTokens,
  stream: true,
  stream_options: { include_usage: true }
})
