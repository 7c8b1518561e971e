/**
 * Gemini GenerateContentResponse stream chunks → ModelEvents. Pure and stateful per response.
 * Gemini sends whole parts: thought text (`thought: true`), answer text and complete function
 * calls. A `thoughtSignature` may ride on any of them; it becomes opaque state on the reasoning
 * part or tool call it came with, so the encoder can put it back on the same kind of part.
 */
import type { FinishReason, OpaqueState, Usage } from "../session/items.ts"
import type { ModelEvent } from "./model-client.ts"
import { boundToolArguments } from "./tool-arguments.ts"

export const geminiProtocol = "gemini"

/** Opaque data of a reasoning part: a thought part, or the signature Gemini put on an answer text part. */
export interface GeminiReasoningState {
  readonly on: "thought" | "text"
  readonly thoughtSignature?: string
}

/** Opaque data of a tool call: its signature, and whether the id is Gemini's own or one we made up. */
export interface GeminiCallState {
  readonly idFromModel: boolean
  readonly thoughtSignature?: string
}

/** The chunk fields this decoder reads; the SDK's GenerateContentResponse fits it. */
export interface GeminiChunk {
  readonly candidates?: ReadonlyArray<GeminiCandidate> | undefined
  readonly usageMetadata?: GeminiUsage | undefined
  readonly promptFeedback?: { readonly blockReason?: string | undefined } | undefined
}

interface GeminiCandidate {
  readonly index?: number | undefined
  readonly content?: { readonly parts?: ReadonlyArray<GeminiPart> | undefined } | undefined
  readonly finishReason?: string | undefined
}

interface GeminiPart {
  readonly text?: string | undefined
  readonly thought?: boolean | undefined
  readonly thoughtSignature?: string | undefined
  readonly functionCall?:
    | {
        readonly id?: string | undefined
        readonly name?: string | undefined
        readonly args?: Readonly<Record<string, unknown>> | undefined
      }
    | undefined
}

interface GeminiUsage {
  readonly promptTokenCount?: number | undefined
  readonly candidatesTokenCount?: number | undefined
  readonly cachedContentTokenCount?: number | undefined
  readonly thoughtsTokenCount?: number | undefined
}

const filtered = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION"
])

/** Gemini ends a response with function calls on STOP like any other; the calls make it a tool-call finish. */
export const mapFinishReason = (reason: string, sawToolCalls: boolean): FinishReason => {
  if (reason === "STOP") return sawToolCalls ? "tool_calls" : "stop"
  if (reason === "MAX_TOKENS") return "length"
  if (filtered.has(reason)) return "content_filter"
  return "other"
}

/** Output tokens are what is billed as output: the answer plus the thoughts. */
export const mapUsage = (usage: GeminiUsage): Usage => {
  const thoughts = usage.thoughtsTokenCount
  const cached = usage.cachedContentTokenCount
  return {
    inputTokens: usage.promptTokenCount ?? 0,
    outputTokens: (usage.candidatesTokenCount ?? 0) + (thoughts ?? 0),
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(thoughts === undefined ? {} : { reasoningTokens: thoughts })
  }
}

const opaque = (data: GeminiReasoningState | GeminiCallState): OpaqueState => ({ protocol: geminiProtocol, data })

const signed = (signature: string | undefined) => (signature === undefined ? {} : { thoughtSignature: signature })

export interface GeminiStreamDecoder {
  readonly push: (chunk: GeminiChunk) => ReadonlyArray<ModelEvent>
  /** The closing events, or undefined when no finish reason arrived: the stream was cut. */
  readonly finish: () => ReadonlyArray<ModelEvent> | undefined
}

export const makeGeminiStreamDecoder = (newCallId: () => string): GeminiStreamDecoder => {
  let thoughtOpen = false
  let sawToolCalls = false
  let finishReason: string | undefined
  let blockedPrompt = false
  let usage: Usage | undefined

  /** A signed thought part ends its reasoning part, so each signature goes back on the part it came with. */
  const closeThought = (events: Array<ModelEvent>, signature?: string) => {
    if (!thoughtOpen && signature === undefined) return
    thoughtOpen = false
    events.push({ type: "reasoning_end", opaque: opaque({ on: "thought", ...signed(signature) }) })
  }

  const addPart = (part: GeminiPart, events: Array<ModelEvent>) => {
    const signature = part.thoughtSignature || undefined
    if (part.thought === true) {
      if (part.text) {
        thoughtOpen = true
        events.push({ type: "reasoning_delta", text: part.text })
      }
      if (signature !== undefined) closeThought(events, signature)
      return
    }
    const call = part.functionCall
    if (call !== undefined) {
      closeThought(events)
      sawToolCalls = true
      events.push({
        type: "tool_call",
        id: call.id || newCallId(),
        name: call.name ?? "",
        arguments: boundToolArguments(call.args ?? {}),
        opaque: opaque({ idFromModel: Boolean(call.id), ...signed(signature) })
      })
      return
    }
    if (part.text) {
      closeThought(events)
      events.push({ type: "text_delta", text: part.text })
    }
    // Gemini 3 may close a streamed answer with an empty text part that only carries the signature.
    if (part.text !== undefined && signature !== undefined) {
      closeThought(events)
      events.push({ type: "reasoning_end", opaque: opaque({ on: "text", thoughtSignature: signature }) })
    }
  }

  const push = (chunk: GeminiChunk): ReadonlyArray<ModelEvent> => {
    const events: Array<ModelEvent> = []
    if (chunk.usageMetadata) usage = mapUsage(chunk.usageMetadata)
    if (chunk.promptFeedback?.blockReason) blockedPrompt = true
    const candidate = chunk.candidates?.find((each) => (each.index ?? 0) === 0)
    if (candidate === undefined) return events
    for (const part of candidate.content?.parts ?? []) addPart(part, events)
    if (candidate.finishReason) finishReason = candidate.finishReason
    return events
  }

  const finish = (): ReadonlyArray<ModelEvent> | undefined => {
    if (finishReason === undefined && !blockedPrompt) return undefined
    const events: Array<ModelEvent> = []
    closeThought(events)
    if (usage !== undefined) events.push({ type: "usage", usage })
    events.push({
      type: "finish",
      // A prompt Gemini refuses to answer gets promptFeedback and no candidate at all.
      reason: finishReason === undefined ? "content_filter" : mapFinishReason(finishReason, sawToolCalls)
    })
    return events
  }

  return { push, finish }
}
