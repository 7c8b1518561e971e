/**
 * Crystal's request → the parameters of Gemini's generateContent. Pure; SDK types only.
 *
 * Replay rules:
 * - Opaque state is replayed only when its protocol is "gemini", whichever Gemini model wrote it
 *   (the service ignores the signature of an incompatible model instead of failing, while a missing
 *   one fails Gemini 3). Reasoning of any other protocol is dropped, text and all.
 * - A reasoning part `{on: "thought"}` goes back as a thought part (`thought: true`) with its text and
 *   its thoughtSignature; `{on: "text"}` puts its signature back on the message's text part.
 * - A tool call's thoughtSignature goes back on its own functionCall part. Its id goes back, on the
 *   call and on its functionResponse, only when Gemini sent it; ids we generated stay local and
 *   Gemini pairs the responses with the calls by name and order.
 * - Tool calls of another protocol have no signature: the first one of such a message gets Google's
 *   documented placeholder, so Gemini 3 accepts a step it did not take itself.
 * - Notes are skipped, and so are incomplete assistant messages without text or tool calls (their
 *   thoughts too); consecutive contents of the same role are merged, so the results of parallel
 *   calls share one user content.
 */
import type { Content, FunctionDeclaration, FunctionResponsePart, GenerateContentParameters, Part } from "@google/genai/web"
import type { AssistantMessage, ReasoningPart, ToolCall, ToolResult, TranscriptItem, UserMessage } from "../session/items.ts"
import { imagesWithBytes, type ImageBytes, type ModelRequest, type ToolDefinition } from "./model-client.ts"
import { geminiProtocol, type GeminiCallState, type GeminiReasoningState } from "./gemini-decode.ts"

type Images = ReadonlyMap<string, ImageBytes> | undefined

/** Google's value for a function call whose signature is unknown: https://ai.google.dev/gemini-api/docs/thought-signatures */
export const foreignCallSignature = "skip_thought_signature_validator"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const optionalString = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

/** The opaque data of a reasoning part, when it is Gemini's and well-formed (sessions are files: trust nothing). */
export const readReasoningState = (part: ReasoningPart): GeminiReasoningState | undefined => {
  if (part.opaque?.protocol !== geminiProtocol || !isRecord(part.opaque.data)) return undefined
  const { on, thoughtSignature } = part.opaque.data
  if (on !== "thought" && on !== "text") return undefined
  const signature = optionalString(thoughtSignature)
  return { on, ...(signature === undefined ? {} : { thoughtSignature: signature }) }
}

export const readCallState = (call: ToolCall): GeminiCallState | undefined => {
  if (call.opaque?.protocol !== geminiProtocol || !isRecord(call.opaque.data)) return undefined
  const signature = optionalString(call.opaque.data["thoughtSignature"])
  return { idFromModel: call.opaque.data["idFromModel"] === true, ...(signature === undefined ? {} : { thoughtSignature: signature }) }
}

/** Gemini wants an object; arguments kept as a raw string (invalid JSON from another model) cannot be one. */
const callArguments = (args: unknown): Record<string, unknown> => {
  if (isRecord(args)) return { ...args }
  if (typeof args === "string") {
    try {
      const parsed: unknown = JSON.parse(args)
      if (isRecord(parsed)) return { ...parsed }
    } catch {
      // Not JSON: sent as no arguments; the tool result already told the model what was wrong.
    }
  }
  return {}
}


const userContent = (message: UserMessage, images: Images): Content => ({
  role: "user",
  parts: [
    ...(message.text === "" ? [] : [{ text: message.text }]),
    ...imagesWithBytes(message.images, images).map((image): Part => ({ inlineData: { mimeType: image.mime, data: image.base64 } }))
  ]
})

const signature = (value: string | undefined) => (value === undefined ? {} : { thoughtSignature: value })

/** Call id → the id to send Gemini (undefined: pair by name and order). */
type WireIds = Map<string, string | undefined>

const modelContent = (message: AssistantMessage, wireIds: WireIds): Content => {
  const parts: Array<Part> = []
  let textSignature: string | undefined
  for (const reasoning of message.reasoning ?? []) {
    const state = readReasoningState(reasoning)
    if (state === undefined) continue
    if (state.on === "text") {
      textSignature = state.thoughtSignature ?? textSignature
      continue
    }
    if (reasoning.text === "" && state.thoughtSignature === undefined) continue
    parts.push({ text: reasoning.text, thought: true, ...signature(state.thoughtSignature) })
  }
  if (message.text !== "" || textSignature !== undefined) parts.push({ text: message.text, ...signature(textSignature) })
  const calls = message.toolCalls ?? []
  const states = calls.map(readCallState)
  const foreign = states.every((state) => state === undefined)
  calls.forEach((call, index) => {
    const state = states[index]
    const id = state?.idFromModel === true ? call.id : undefined
    wireIds.set(call.id, id)
    const callSignature = state?.thoughtSignature ?? (foreign && index === 0 ? foreignCallSignature : undefined)
    parts.push({
      functionCall: { name: call.name, args: callArguments(call.arguments), ...(id === undefined ? {} : { id }) },
      ...signature(callSignature)
    })
  })
  return { role: "model", parts }
}

const toolResultContent = (result: ToolResult, wireIds: WireIds, images: Images): Content => {
  const id = wireIds.get(result.callId)
  const blobs = imagesWithBytes(result.images, images).map(
    (image): FunctionResponsePart => ({ inlineData: { mimeType: image.mime, data: image.base64 } })
  )
  return {
    role: "user",
    parts: [
      {
        functionResponse: {
          name: result.name,
          response: result.isError ? { error: result.text } : { output: result.text },
          ...(id === undefined ? {} : { id }),
          ...(blobs.length === 0 ? {} : { parts: blobs })
        }
      }
    ]
  }
}

/** A stream cut before any answer or call arrived leaves nothing worth replaying, thoughts included. */
const isEmptyRemnant = (message: AssistantMessage): boolean =>
  message.incomplete === true && message.text === "" && (message.toolCalls ?? []).length === 0

const encodeItem = (item: TranscriptItem, wireIds: WireIds, images: Images): Content | undefined => {
  switch (item._tag) {
    case "user":
      return userContent(item, images)
    case "assistant":
      return isEmptyRemnant(item) ? undefined : modelContent(item, wireIds)
    case "tool_result":
      return toolResultContent(item, wireIds, images)
    case "note":
      return undefined
  }
}

export const geminiContents = (items: ReadonlyArray<TranscriptItem>, images?: ReadonlyMap<string, ImageBytes>): Array<Content> => {
  const wireIds: WireIds = new Map()
  const contents: Array<Content> = []
  for (const item of items) {
    const content = encodeItem(item, wireIds, images)
    const parts = content?.parts ?? []
    if (content === undefined || parts.length === 0) continue
    const last = contents.at(-1)
    if (last !== undefined && last.role === content.role) {
      last.parts = [...(last.parts ?? []), ...parts]
    } else {
      contents.push({ role: content.role ?? "user", parts: [...parts] })
    }
  }
  return contents
}

/** Gemini reads a JSON Schema for the parameters, but refuses the `$schema` keyword. */
export const geminiParameters = (schema: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const { $schema: _ignored, ...rest } = schema
  return rest
}

export const geminiFunctionDeclarations = (tools: ReadonlyArray<ToolDefinition>): Array<FunctionDeclaration> =>
  tools.map((tool) => ({ name: tool.name, description: tool.description, parametersJsonSchema: geminiParameters(tool.inputSchema) }))

/** The SDK's parameters, with the contents known to be a list (empty when there is nothing to send). */
export type GeminiRequest = GenerateContentParameters & { readonly contents: Array<Content> }

export const geminiRequest = (request: ModelRequest): GeminiRequest => ({
  model: request.model.id,
  contents: geminiContents(request.items, request.images),
  config: {
    ...(request.system === "" ? {} : { systemInstruction: { parts: [{ text: request.system }] } }),
    ...(request.tools.length === 0 ? {} : { tools: [{ functionDeclarations: geminiFunctionDeclarations(request.tools) }] }),
    maxOutputTokens: request.model.capabilities.maxOutputTokens,
    // Gemini 2.x refuses a JSON response MIME type next to function declarations ("Function calling
    // with a response mime type: 'application/json' is unsupported"; Gemini 3 takes both), so the
    // schema fields go only on a request without tools, the answer's retry, as on Ollama: the
    // instruction carries the schema on the first answer.
    ...(request.outputSchema !== undefined && request.tools.length === 0
      ? { responseMimeType: "application/json", responseJsonSchema: { ...request.outputSchema.schema } }
      : {}),
    ...(request.model.capabilities.reasoning ? { thinkingConfig: { includeThoughts: true } } : {})
  }
})
