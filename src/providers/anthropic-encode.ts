/**
 * Crystal's request → the Anthropic Messages request body. Pure; SDK types only.
 *
 * Replay rules:
 * - Reasoning goes back only from assistant messages of this very model (`message.model` equals the
 *   request's "provider/model") and only when its opaque state is of protocol "anthropic": a thinking
 *   block with the text and signature exactly as received, a redacted_thinking block with its data.
 *   Reasoning from other protocols or models, and thinking without a signature (a stream cut before
 *   it arrived), is dropped. Thinking blocks open the assistant content, in the order received;
 *   text and tool_use blocks follow.
 * - Tool calls go back whichever model made them. Ids are fitted to Anthropic's pattern
 *   ([a-zA-Z0-9_-]) identically on the tool_use and its tool_result; arguments that were not a JSON
 *   object (invalid JSON kept as a string) are sent as `{}`, the only input the API accepts then.
 * - Tool results that follow one another, and user text right after them, share one user message.
 * - Notes, and assistant messages with neither text nor tool calls, are not sent.
 * - Thinking (adaptive where the model takes it, else a fixed budget) is asked for when the model entry says `reasoning`, except while a tool loop
 *   continues from an assistant message that has no thinking to replay (e.g. it came from another
 *   model): the API rejects thinking then.
 */
import { answerTool, answerToolChoice } from "./anthropic-answer-tool.ts"
import type {
  Base64ImageSource,
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  ThinkingConfigParam,
  Tool,
  ToolResultBlockParam
} from "@anthropic-ai/sdk/resources/messages"
import type { AssistantMessage, ImageRef, ReasoningPart, ToolCall, ToolResult, UserMessage } from "../session/items.ts"
import { anthropicProtocol } from "./anthropic-decode.ts"
import { imagesWithBytes, type ImageBytes, type ModelRequest, type ToolDefinition } from "./model-client.ts"

type Images = ReadonlyMap<string, ImageBytes> | undefined
type MediaType = Base64ImageSource["media_type"]

const mediaTypes: ReadonlySet<string> = new Set<MediaType>(["image/jpeg", "image/png", "image/gif", "image/webp"])
const isMediaType = (mime: string): mime is MediaType => mediaTypes.has(mime)

/** Images without bytes, or of a type the API does not take, are left out; their marker stays in the text. */
const imageBlocks = (refs: ReadonlyArray<ImageRef> | undefined, images: Images): Array<ImageBlockParam> =>
  imagesWithBytes(refs, images).flatMap((image) =>
    isMediaType(image.mime) ? [{ type: "image" as const, source: { type: "base64" as const, media_type: image.mime, data: image.base64 } }] : []
  )

/** The API rejects empty text blocks. */
const textBlocks = (text: string): Array<TextBlockParam> => (text === "" ? [] : [{ type: "text", text }])

const toolUseId = (id: string): string => id.replace(/[^a-zA-Z0-9_-]/g, "_")

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const field = (value: unknown, name: string): unknown => (isObject(value) ? value[name] : undefined)

const replayedThinking = (part: ReasoningPart): Array<ContentBlockParam> => {
  if (part.opaque?.protocol !== anthropicProtocol) return []
  const data = part.opaque.data
  const signature = field(data, "signature")
  const redacted = field(data, "data")
  if (field(data, "type") === "thinking" && typeof signature === "string" && signature !== "") {
    return [{ type: "thinking", thinking: part.text, signature }]
  }
  if (field(data, "type") === "redacted_thinking" && typeof redacted === "string") {
    return [{ type: "redacted_thinking", data: redacted }]
  }
  return []
}

const toolUseBlock = (call: ToolCall): ContentBlockParam => ({
  type: "tool_use",
  id: toolUseId(call.id),
  name: call.name,
  input: isObject(call.arguments) ? call.arguments : {}
})

const assistantContent = (message: AssistantMessage, modelRef: string): Array<ContentBlockParam> => {
  const toolCalls = message.toolCalls ?? []
  if (message.text === "" && toolCalls.length === 0) return []
  const thinking = message.model === modelRef ? (message.reasoning ?? []).flatMap(replayedThinking) : []
  return [...thinking, ...textBlocks(message.text), ...toolCalls.map(toolUseBlock)]
}

// Anthropic advises images before the text that talks about them.
const userContent = (message: UserMessage, images: Images): Array<ContentBlockParam> => [
  ...imageBlocks(message.images, images),
  ...textBlocks(message.text)
]

const toolResultBlock = (result: ToolResult, images: Images): ToolResultBlockParam => {
  const pictures = imageBlocks(result.images, images)
  const content = pictures.length === 0 ? result.text : [...textBlocks(result.text), ...pictures]
  return {
    type: "tool_result",
    tool_use_id: toolUseId(result.callId),
    ...(content.length === 0 ? {} : { content }),
    ...(result.isError ? { is_error: true } : {})
  }
}

interface Turn {
  readonly role: "user" | "assistant"
  readonly content: Array<ContentBlockParam>
}

export const anthropicMessages = (request: ModelRequest): Array<MessageParam> => {
  const turns: Array<Turn> = []
  const addUserBlocks = (blocks: ReadonlyArray<ContentBlockParam>) => {
    if (blocks.length === 0) return
    const last = turns.at(-1)
    if (last?.role === "user") last.content.push(...blocks)
    else turns.push({ role: "user", content: [...blocks] })
  }
  for (const item of request.items) {
    switch (item._tag) {
      case "user":
        addUserBlocks(userContent(item, request.images))
        break
      case "tool_result":
        addUserBlocks([toolResultBlock(item, request.images)])
        break
      case "assistant": {
        const content = assistantContent(item, request.model.ref)
        if (content.length > 0) turns.push({ role: "assistant", content })
        break
      }
      case "note":
        break
    }
  }
  return turns.map(({ role, content }) => ({ role, content }))
}

/**
 * The API wants at least 1,024 thinking tokens and fewer than `max_tokens`. Half the output budget
 * leaves the other half for the answer and its tool calls (a file edit can be long); above 32k
 * Anthropic suggests batch processing rather than a stream, so that is the ceiling.
 */
export const thinkingBudget = (maxTokens: number): number | undefined => {
  const budget = Math.min(32_000, Math.floor(maxTokens / 2))
  return budget >= 1_024 ? budget : undefined
}

const startsWithThinking = (message: MessageParam): boolean => {
  const [first] = typeof message.content === "string" ? [] : message.content
  return first?.type === "thinking" || first?.type === "redacted_thinking"
}

/** With thinking on, the assistant message a tool loop continues from must open with a thinking block. */
const continuesToolLoopWithoutThinking = (messages: ReadonlyArray<MessageParam>): boolean => {
  const last = messages.at(-1)
  const endsWithToolResults =
    last?.role === "user" && typeof last.content !== "string" && last.content.some((block) => block.type === "tool_result")
  if (!endsWithToolResults) return false
  const assistant = messages.findLast((message) => message.role === "assistant")
  return assistant !== undefined && !startsWithThinking(assistant)
}

/**
 * Models that take adaptive thinking and reject (or deprecate) fixed budgets: Opus and Sonnet 4.6
 * and later, Mythos, and every Claude 5 family. Older ones (Haiku 4.5, Sonnet/Opus 4.5) only take
 * budgets.
 */
export const takesAdaptiveThinking = (id: string): boolean =>
  /^claude-(opus|sonnet)-4-([6-9]|\d{2,})(-|$)/.test(id) || /^claude-mythos-/.test(id) || /^claude-[a-z]+-([5-9]|\d{2,})(-|$)/.test(id)

const thinkingConfig = (request: ModelRequest, messages: ReadonlyArray<MessageParam>): ThinkingConfigParam | undefined => {
  if (!request.model.capabilities.reasoning || continuesToolLoopWithoutThinking(messages)) return undefined
  // Summarised rather than the model's default, which may omit the text the operator sees dimmed.
  if (takesAdaptiveThinking(request.model.id)) return { type: "adaptive", display: "summarized" }
  const budget = thinkingBudget(request.model.capabilities.maxOutputTokens)
  return budget === undefined ? undefined : { type: "enabled", budget_tokens: budget }
}

export const anthropicTools = (tools: ReadonlyArray<ToolDefinition>): Array<Tool> =>
  tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    // Tool input schemas describe an arguments object, which is what the SDK's type insists on.
    input_schema: { ...tool.inputSchema, type: "object" }
  }))

/** The request's tools, and with `--output-schema` the answer tool and a choice that leads to it. */
const tools = (request: ModelRequest, thinking: boolean): Pick<MessageCreateParamsStreaming, "tools" | "tool_choice"> => {
  const own = request.tools.length === 0 ? [] : anthropicTools(request.tools)
  const schema = request.outputSchema
  if (schema === undefined) return own.length === 0 ? {} : { tools: own }
  return { tools: [...own, answerTool(schema)], tool_choice: answerToolChoice(schema, own.length, thinking) }
}

export const anthropicRequestBody = (request: ModelRequest): MessageCreateParamsStreaming => {
  const messages = anthropicMessages(request)
  const thinking = thinkingConfig(request, messages)
  return {
    model: request.model.id,
    max_tokens: request.model.capabilities.maxOutputTokens,
    ...(request.system === "" ? {} : { system: request.system }),
    messages,
    ...tools(request, thinking !== undefined),
    ...(thinking === undefined ? {} : { thinking }),
    stream: true
  }
}
