/**
 * Crystal's request → the Responses API request body. Pure; SDK types only.
 *
 * The request is stateless (`store: false`): every request carries the whole conversation, and
 * reasoning travels as encrypted content. Replay rules:
 * - A reasoning item goes back only from a complete assistant message of the same "provider/model"
 *   as this request, only when its opaque state has protocol "openai-responses" and carries
 *   encrypted_content (with nothing stored server-side, an id alone refers to nothing). It is sent
 *   as received: id, summary, encrypted_content.
 * - A reasoning item goes back only when something it preceded in the same message (text or a
 *   function call) goes back after it: the API rejects a reasoning item without its following item.
 * - Function calls always go back (call_id, name, arguments); their item id (fc_…) only when the
 *   message's reasoning does too, since the API rejects a call whose linked reasoning is missing.
 * - A message's output items go back in the order the model produced them (the output index kept in
 *   the opaque state); the text takes the first place no reasoning item or call held.
 * - Reasoning from another protocol or model is dropped, never sent.
 * - Notes are skipped, and so are incomplete assistant messages with nothing in them.
 * Images: user images are input_image parts of the user message; tool-result images are
 * input_image parts of the function_call_output, which this API accepts. Both as data URLs.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseFunctionCallOutputItem,
  ResponseInputContent,
  ResponseInputItem,
  ResponseInputImage
} from "openai/resources/responses/responses"
import type { AssistantMessage, ImageRef, OpaqueState, ToolResult, TranscriptItem, UserMessage } from "../session/items.ts"
import { dataUrl, imagesWithBytes, type ImageBytes, type ModelRequest, type ToolDefinition } from "./model-client.ts"
import { objectRootSchema } from "./object-root-schema.ts"
import { CallState, ReasoningState, responsesProtocol } from "./openai-responses-decode.ts"

type Images = ReadonlyMap<string, ImageBytes>
export type ServiceTier = NonNullable<ResponseCreateParamsStreaming["service_tier"]>

export interface ResponsesBodyOptions {
  /** Passed through as `service_tier` when set (SPEC I3). */
  readonly serviceTier?: ServiceTier | undefined
}

const decodeReasoningState = Schema.decodeUnknownOption(ReasoningState)
const decodeCallState = Schema.decodeUnknownOption(CallState)

const stateData = <A>(opaque: OpaqueState | undefined, decode: (data: unknown) => Option.Option<A>): A | undefined =>
  opaque?.protocol === responsesProtocol ? Option.getOrUndefined(decode(opaque.data)) : undefined

/** The images of `refs` that have bytes, as data URLs; the others stay as their marker text. */
const imageParts = (refs: ReadonlyArray<ImageRef> | undefined, images: Images): Array<ResponseInputImage> =>
  imagesWithBytes(refs, images).map((image) => ({ type: "input_image", detail: "auto", image_url: dataUrl(image) }))

const encodeUser = (message: UserMessage, images: Images): ResponseInputItem => {
  const pictures = imageParts(message.images, images)
  if (pictures.length === 0) return { type: "message", role: "user", content: message.text }
  const content: Array<ResponseInputContent> = [
    ...(message.text === "" ? [] : [{ type: "input_text" as const, text: message.text }]),
    ...pictures
  ]
  return { type: "message", role: "user", content }
}

const encodeToolResult = (result: ToolResult, images: Images): ResponseInputItem => {
  const pictures = imageParts(result.images, images)
  if (pictures.length === 0) return { type: "function_call_output", call_id: result.callId, output: result.text }
  const output: Array<ResponseFunctionCallOutputItem> = [
    ...(result.text === "" ? [] : [{ type: "input_text" as const, text: result.text }]),
    ...pictures
  ]
  return { type: "function_call_output", call_id: result.callId, output }
}

/** Arguments the model sent as invalid JSON were stored as the raw string: send them back unchanged. */
const encodeArguments = (args: unknown): string => (typeof args === "string" ? args : (JSON.stringify(args) ?? "{}"))

interface Placed {
  /** Output index on the original response; calls from elsewhere come after everything placed. */
  readonly at: number
  readonly kind: "reasoning" | "text" | "call"
  readonly item: ResponseInputItem
}

const firstFreeIndex = (taken: ReadonlySet<number>): number => {
  let index = 0
  while (taken.has(index)) index++
  return index
}

/** A reasoning item as the model sent it, or undefined without the encrypted content that makes it replayable. */
const replayedReasoning = (state: ReasoningState): Placed | undefined => {
  const encrypted = state.item.encrypted_content
  if (typeof encrypted !== "string" || encrypted === "") return undefined
  const summary = state.item.summary.map((part) => ({ ...part }))
  return { at: state.outputIndex, kind: "reasoning", item: { type: "reasoning", id: state.item.id, summary, encrypted_content: encrypted } }
}

/** The output items of one assistant message, in the order the model produced them. */
const encodeAssistant = (message: AssistantMessage, modelRef: string): ReadonlyArray<ResponseInputItem> => {
  const reasoning = (message.reasoning ?? []).flatMap((part) => {
    const state = stateData(part.opaque, decodeReasoningState)
    return state === undefined ? [] : [state]
  })
  const calls = (message.toolCalls ?? []).map((call) => ({ call, state: stateData(call.opaque, decodeCallState) }))
  const taken = new Set([
    ...reasoning.map((state) => state.outputIndex),
    ...calls.flatMap(({ state }) => (state === undefined ? [] : [state.outputIndex]))
  ])

  const replayable = message.incomplete !== true && message.model === modelRef
  const sentReasoning = replayable ? reasoning.flatMap((state) => replayedReasoning(state) ?? []) : []
  const withIds = sentReasoning.length > 0
  const text: ReadonlyArray<Placed> =
    message.text === "" ? [] : [{ at: firstFreeIndex(taken), kind: "text", item: { type: "message", role: "assistant", content: message.text } }]

  const placed: Array<Placed> = [
    ...sentReasoning,
    ...text,
    ...calls.map(({ call, state }): Placed => ({
      at: state?.outputIndex ?? Number.POSITIVE_INFINITY,
      kind: "call",
      item: {
        type: "function_call",
        call_id: call.id,
        name: call.name,
        arguments: encodeArguments(call.arguments),
        ...(withIds && state?.itemId !== undefined ? { id: state.itemId } : {})
      }
    }))
  ]
  // Stable, so calls without an index keep their order after everything that has one.
  const ordered = placed.sort((a, b) => (a.at === b.at ? 0 : a.at < b.at ? -1 : 1))
  // Reasoning after the last text or call has no following item to go with.
  const lastFollower = ordered.findLastIndex((entry) => entry.kind !== "reasoning")
  return ordered.slice(0, lastFollower + 1).map((entry) => entry.item)
}

const encodeItem = (item: TranscriptItem, modelRef: string, images: Images): ReadonlyArray<ResponseInputItem> => {
  switch (item._tag) {
    case "user":
      return [encodeUser(item, images)]
    case "assistant":
      return encodeAssistant(item, modelRef)
    case "tool_result":
      return [encodeToolResult(item, images)]
    case "note":
    case "compaction":
      return []
  }
}

export const responsesInput = (
  items: ReadonlyArray<TranscriptItem>,
  modelRef: string,
  images: Images = new Map()
): Array<ResponseInputItem> => items.flatMap((item) => encodeItem(item, modelRef, images))

export const responsesTools = (tools: ReadonlyArray<ToolDefinition>): Array<FunctionTool> =>
  tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: { ...tool.inputSchema },
    // The Responses API makes function tools strict unless told otherwise, and strict mode
    // refuses ordinary JSON Schemas (optional properties, open objects).
    strict: false
  }))

export const responsesRequestBody = (request: ModelRequest, options: ResponsesBodyOptions = {}): ResponseCreateParamsStreaming => {
  const { model } = request
  return {
    model: model.id,
    ...(request.system === "" ? {} : { instructions: request.system }),
    input: responsesInput(request.items, model.ref, request.images),
    ...(request.tools.length === 0 ? {} : { tools: responsesTools(request.tools) }),
    max_output_tokens: model.capabilities.maxOutputTokens,
    store: false,
    // Models without reasoning reject both with a 400 ("Encrypted content is not supported with this model").
    ...(model.capabilities.reasoning
      ? { include: ["reasoning.encrypted_content" as const], reasoning: { summary: "auto" as const } }
      : {}),
    ...(options.serviceTier === undefined ? {} : { service_tier: options.serviceTier }),
    // Not strict: strict mode takes only a subset of JSON Schema; the engine validates the answer.
    ...(request.outputSchema === undefined
      ? {}
      : { text: { format: { type: "json_schema" as const, name: request.outputSchema.name, schema: objectRootSchema(request.outputSchema), strict: false } } }),
    stream: true
  }
}
