/**
 * Crystal's request → the DeepSeek Chat Completions body: the OpenAI-compatible body of
 * openai-chat-encode.ts plus what DeepSeek adds. Pure; SDK types only.
 *
 * Replay rules, as api-docs.deepseek.com/guides/thinking_mode states them for thinking mode:
 * - Between two user messages, if the model made no tool call, the assistant's
 *   `reasoning_content` need not be sent back and the API ignores it. We do not send it: it only
 *   costs tokens. (The first deepseek-reasoner went further and answered 400 to any
 *   `reasoning_content` in the input; it could not call tools, so this rule never sends it one.)
 * - Between two user messages, if the model made a tool call, the `reasoning_content` of every
 *   assistant message in between must be sent back, in that and all later requests; a missing one
 *   is a 400 ("The `reasoning_content` in the thinking mode must be passed back to the API").
 *   We send it on every assistant message of such a turn — the text of its reasoning parts that
 *   carry the "deepseek" opaque state, or "" when it has none (written by another provider, or
 *   before thinking was on). Reasoning of any other protocol is never sent.
 *   A turn with tool calls but neither DeepSeek reasoning nor thinking requested ran without
 *   thinking mode; it gets no `reasoning_content`.
 *   Turns are counted on transcript items: the user message openai-chat-encode.ts adds to carry
 *   tool-result images splits a turn on the wire, so we send a superset, which the API ignores.
 * - Reasoning is not tied to one DeepSeek model: the text is plain and the rule is the API's.
 * - Everything else (text, tool calls, tool results, images, notes) is openai-chat-encode.ts.
 */
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam
} from "openai/resources/chat/completions"
import type { AssistantMessage, TranscriptItem } from "../session/items.ts"
import type { ModelRequest } from "./model-client.ts"
import { chatMessages, chatRequestBody } from "./openai-chat-encode.ts"

export type DeepSeekAssistantMessage = ChatCompletionAssistantMessageParam & { reasoning_content?: string }

export type DeepSeekChatBody = Omit<ChatCompletionCreateParamsStreaming, "messages"> & {
  messages: Array<ChatCompletionMessageParam | DeepSeekAssistantMessage>
  /** DeepSeek's thinking-mode switch; sent only to turn it on for a model declared to reason. */
  thinking?: { type: "enabled" }
}

export const deepseekProtocol = "deepseek"

const deepseekReasoning = (message: AssistantMessage): string =>
  (message.reasoning ?? [])
    .filter((part) => part.opaque?.protocol === deepseekProtocol)
    .map((part) => part.text)
    .join("")

/**
 * The reasoning_content to send back for each assistant item that needs one, per the rules above.
 * A turn runs from one user message to the next.
 */
export const reasoningToReplay = (
  items: ReadonlyArray<TranscriptItem>,
  thinkingRequested: boolean
): ReadonlyMap<AssistantMessage, string> => {
  const replay = new Map<AssistantMessage, string>()
  let turn: Array<AssistantMessage> = []
  const closeTurn = () => {
    const calledTools = turn.some((message) => (message.toolCalls ?? []).length > 0)
    const thought = turn.some((message) => deepseekReasoning(message) !== "")
    if (calledTools && (thought || thinkingRequested)) {
      for (const message of turn) replay.set(message, deepseekReasoning(message))
    }
    turn = []
  }
  for (const item of items) {
    if (item._tag === "user") closeTurn()
    else if (item._tag === "assistant") turn.push(item)
  }
  closeTurn()
  return replay
}

/**
 * Adds reasoning_content to the assistant messages of the OpenAI-compatible encoding. Assistant
 * items map to at most one assistant message each, in order; asking the shared encoder which ones
 * it kept pairs them up without repeating its rules.
 */
const withReasoning = (
  messages: ReadonlyArray<ChatCompletionMessageParam>,
  items: ReadonlyArray<TranscriptItem>,
  replay: ReadonlyMap<AssistantMessage, string>
): Array<ChatCompletionMessageParam | DeepSeekAssistantMessage> => {
  if (replay.size === 0) return [...messages]
  const encodedAssistants = items.filter(
    (item): item is AssistantMessage => item._tag === "assistant" && chatMessages("", [item]).length > 0
  )
  let next = 0
  return messages.map((message) => {
    if (message.role !== "assistant") return message
    const item = encodedAssistants[next++]
    const reasoning = item === undefined ? undefined : replay.get(item)
    return reasoning === undefined ? message : { ...message, reasoning_content: reasoning }
  })
}

export const deepseekRequestBody = (request: ModelRequest): DeepSeekChatBody => {
  const thinkingRequested = request.model.capabilities.reasoning
  const body = chatRequestBody(request)
  return {
    ...body,
    messages: withReasoning(body.messages, request.items, reasoningToReplay(request.items, thinkingRequested)),
    // DeepSeek takes no json_schema: JSON mode at most, the schema goes in the instructions.
    ...(request.outputSchema === undefined ? {} : { response_format: { type: "json_object" as const } }),
    ...(thinkingRequested ? { thinking: { type: "enabled" } } : {})
  }
}
