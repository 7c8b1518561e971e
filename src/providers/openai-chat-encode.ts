/**
 * Crystal's request → the Chat Completions request body. Pure; SDK types only.
 *
 * Reasoning is not replayed on this protocol; notes are for the operator only.
 * Images (SPEC I2) go as image_url parts with data URLs, only where this API takes them: on user
 * messages. A tool message carries text only, so the images of a run of tool results follow it in
 * one user message, each group introduced by the call it came from. An ImageRef without bytes is
 * left out; its marker stays in the text.
 */
import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartImage,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool
} from "openai/resources/chat/completions"
import type { AssistantMessage, ImageRef, ToolCall, ToolResult, TranscriptItem, UserMessage } from "../session/items.ts"
import { dataUrl, imagesWithBytes, type ImageBytes, type ModelRequest, type ToolDefinition } from "./model-client.ts"
import { objectRootSchema } from "./object-root-schema.ts"

type Images = ReadonlyMap<string, ImageBytes>

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

/** The images of `refs` that have bytes, as data URLs. */
const imageParts = (refs: ReadonlyArray<ImageRef> | undefined, images: Images): Array<ChatCompletionContentPartImage> =>
  imagesWithBytes(refs, images).map((image) => ({ type: "image_url", image_url: { url: dataUrl(image) } }))

const encodeUser = (message: UserMessage, images: Images): ChatCompletionMessageParam => {
  const pictures = imageParts(message.images, images)
  if (pictures.length === 0) return { role: "user", content: message.text }
  return { role: "user", content: [...(message.text === "" ? [] : [{ type: "text" as const, text: message.text }]), ...pictures] }
}

/** The user-message parts that carry a tool result's images, introduced by the call they came from. */
const toolImageParts = (result: ToolResult, images: Images): ReadonlyArray<ChatCompletionContentPart> => {
  const pictures = imageParts(result.images, images)
  if (pictures.length === 0) return []
  return [{ type: "text", text: `Images from the result of tool call ${result.callId} (${result.name}):` }, ...pictures]
}

export const chatMessages = (
  system: string,
  items: ReadonlyArray<TranscriptItem>,
  images: Images = new Map()
): Array<ChatCompletionMessageParam> => {
  const messages: Array<ChatCompletionMessageParam> = system === "" ? [] : [{ role: "system", content: system }]
  // Images of the tool results since the last other message: a user message may not sit between tool messages.
  let toolImages: Array<ChatCompletionContentPart> = []
  const flushToolImages = () => {
    if (toolImages.length === 0) return
    messages.push({ role: "user", content: toolImages })
    toolImages = []
  }
  for (const item of items) {
    switch (item._tag) {
      case "user":
        flushToolImages()
        messages.push(encodeUser(item, images))
        break
      case "assistant":
        if (isEmptyRemnant(item)) break
        flushToolImages()
        messages.push(encodeAssistant(item))
        break
      case "tool_result":
        messages.push({ role: "tool", tool_call_id: item.callId, content: item.text })
        toolImages.push(...toolImageParts(item, images))
        break
      case "note":
        break
    }
  }
  flushToolImages()
  return messages
}

export const chatTools = (tools: ReadonlyArray<ToolDefinition>): Array<ChatCompletionTool> =>
  tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: { ...tool.inputSchema } }
  }))

export const chatRequestBody = (request: ModelRequest): ChatCompletionCreateParamsStreaming => ({
  model: request.model.id,
  messages: chatMessages(request.system, request.items, request.images),
  ...(request.tools.length === 0 ? {} : { tools: chatTools(request.tools) }),
  max_tokens: request.model.capabilities.maxOutputTokens,
  // Not strict: strict mode takes only a subset of JSON Schema; the engine validates the answer.
  ...(request.outputSchema === undefined
    ? {}
    : { response_format: { type: "json_schema" as const, json_schema: { name: request.outputSchema.name, schema: objectRootSchema(request.outputSchema), strict: false } } }),
  stream: true,
  stream_options: { include_usage: true }
})
