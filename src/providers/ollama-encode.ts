/**
 * Crystal's request → the Ollama /api/chat request body. Pure; wire types only.
 *
 * Replay rules:
 * - Reasoning goes back as the assistant message's `thinking` text only when the message was
 *   written by this very model (AssistantMessage.model equals the request's "provider/model") and
 *   the reasoning part carries the "ollama" opaque state. Reasoning from any other model or
 *   protocol is dropped: thinking text shapes a model's next answer and is only meaningful to the
 *   model (and chat template) that produced it.
 * - Tool calls go back with their arguments as a JSON object, as Ollama sends them; their ids (the
 *   server's or ours) travel as `id` / `tool_call_id`, which servers without ids ignore.
 * - Tool results are `tool` messages naming the tool (`tool_name`), their images on the message's
 *   own `images` array; user images likewise on the user message (SPEC I2). An ImageRef whose bytes
 *   are not in the request is skipped; its marker stays in the text.
 * - Notes are never sent; an assistant message cut off before anything arrived is skipped.
 */
import type { AssistantMessage, ImageRef, ToolCall, TranscriptItem } from "../session/items.ts"
import { imagesWithBytes, type ImageBytes, type ModelRequest, type ToolDefinition } from "./model-client.ts"

export interface OllamaWireToolCall {
  readonly id: string
  readonly function: { readonly name: string; readonly arguments: Readonly<Record<string, unknown>> }
}

export interface OllamaWireMessage {
  readonly role: "system" | "user" | "assistant" | "tool"
  readonly content: string
  readonly thinking?: string
  /** Base64 without a data: prefix. */
  readonly images?: ReadonlyArray<string>
  readonly tool_calls?: ReadonlyArray<OllamaWireToolCall>
  readonly tool_name?: string
  readonly tool_call_id?: string
}

export interface OllamaWireTool {
  readonly type: "function"
  readonly function: { readonly name: string; readonly description: string; readonly parameters: Readonly<Record<string, unknown>> }
}

export interface OllamaChatBody {
  readonly model: string
  readonly messages: ReadonlyArray<OllamaWireMessage>
  readonly tools?: ReadonlyArray<OllamaWireTool>
  readonly think?: boolean
  /** A JSON Schema the reply is constrained to. */
  readonly format?: Readonly<Record<string, unknown>>
  readonly options: { readonly num_ctx: number; readonly num_predict: number }
  readonly stream: true
}

type ImageMap = ReadonlyMap<string, ImageBytes> | undefined

const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Ollama only takes an object. Arguments another provider sent as invalid JSON were stored as the
 * raw string: an object inside is sent, anything else becomes `{}` (the tool result already told
 * the model its arguments were unusable).
 */
const encodeArguments = (args: unknown): Readonly<Record<string, unknown>> => {
  if (isPlainObject(args)) return args
  if (typeof args !== "string") return {}
  try {
    const parsed: unknown = JSON.parse(args)
    return isPlainObject(parsed) ? parsed : {}
  } catch {
    return {}
  }
}

const encodeToolCall = (call: ToolCall): OllamaWireToolCall => ({
  id: call.id,
  function: { name: call.name, arguments: encodeArguments(call.arguments) }
})

const imagesOf = (refs: ReadonlyArray<ImageRef> | undefined, images: ImageMap): ReadonlyArray<string> =>
  imagesWithBytes(refs, images).map((image) => image.base64)

const withImages = (message: OllamaWireMessage, images: ReadonlyArray<string>): OllamaWireMessage =>
  images.length === 0 ? message : { ...message, images }

const isEmptyRemnant = (message: AssistantMessage): boolean =>
  message.incomplete === true && message.text === "" && (message.toolCalls ?? []).length === 0

/** The thinking this model wrote, for replay to itself; empty for any other model or protocol. */
const replayableThinking = (message: AssistantMessage, modelRef: string): string =>
  message.model !== modelRef
    ? ""
    : (message.reasoning ?? [])
        .filter((part) => part.opaque?.protocol === "ollama")
        .map((part) => part.text)
        .join("")

const encodeAssistant = (message: AssistantMessage, modelRef: string): OllamaWireMessage => {
  const thinking = replayableThinking(message, modelRef)
  const toolCalls = message.toolCalls ?? []
  return {
    role: "assistant",
    content: message.text,
    ...(thinking === "" ? {} : { thinking }),
    ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls.map(encodeToolCall) })
  }
}

const encodeItem = (item: TranscriptItem, modelRef: string, images: ImageMap): ReadonlyArray<OllamaWireMessage> => {
  switch (item._tag) {
    case "user":
      return [withImages({ role: "user", content: item.text }, imagesOf(item.images, images))]
    case "assistant":
      return isEmptyRemnant(item) ? [] : [encodeAssistant(item, modelRef)]
    case "tool_result":
      return [
        withImages(
          { role: "tool", content: item.text, tool_name: item.name, tool_call_id: item.callId },
          imagesOf(item.images, images)
        )
      ]
    case "note":
    case "compaction":
      return []
  }
}

export const ollamaMessages = (request: ModelRequest): ReadonlyArray<OllamaWireMessage> => [
  ...(request.system === "" ? [] : [{ role: "system" as const, content: request.system }]),
  ...request.items.flatMap((item) => encodeItem(item, request.model.ref, request.images))
]

export const ollamaTools = (tools: ReadonlyArray<ToolDefinition>): ReadonlyArray<OllamaWireTool> =>
  tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: { ...tool.inputSchema } }
  }))

/** `think` only for models declared to reason: Ollama rejects it for models that cannot. */
export const ollamaRequestBody = (request: ModelRequest): OllamaChatBody => {
  const { capabilities } = request.model
  return {
    model: request.model.id,
    messages: ollamaMessages(request),
    ...(request.tools.length === 0 ? {} : { tools: ollamaTools(request.tools) }),
    ...(capabilities.reasoning ? { think: true } : {}),
    // Ollama lets `format` override tool calling (the model can no longer call a tool: ollama/ollama
    // #8095, #13750), so the schema is sent only on a request without tools: the answer's retry.
    ...(request.outputSchema !== undefined && request.tools.length === 0 ? { format: { ...request.outputSchema.schema } } : {}),
    options: { num_ctx: capabilities.contextWindow, num_predict: capabilities.maxOutputTokens },
    stream: true
  }
}
