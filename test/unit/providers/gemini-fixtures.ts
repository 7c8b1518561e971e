/** The Gemini adapter's test setup: a model entry of the gemini protocol pointed at the fake server. */
import * as Effect from "effect/Effect"
import type { ModelCapabilities, ModelEntry, ResolvedProvider } from "../../../src/providers/catalog.ts"
import { makeGeminiClient } from "../../../src/providers/gemini.ts"
import type { ModelClientShape, ModelEvent } from "../../../src/providers/model-client.ts"
import type { FakeLlm } from "../../support/fake-llm/server.ts"
import { fakeLlm, keyEnv } from "./fixtures.ts"

export const geminiModel = (
  baseURL: string,
  provider: Partial<ResolvedProvider> = {},
  capabilities: Partial<ModelCapabilities> = {}
): ModelEntry => ({
  ref: "gem/gemini-test",
  id: "gemini-test",
  provider: { name: "gem", protocol: "gemini", baseURL, apiKeyEnv: [keyEnv], headers: {}, ...provider },
  capabilities: { contextWindow: 1_048_576, maxOutputTokens: 4_096, imageInput: true, reasoning: false, ...capabilities },
  listed: true
})

export interface GeminiSetup {
  readonly fake: FakeLlm
  readonly model: ModelEntry
  readonly client: ModelClientShape
}

/** A fake server and a Gemini client pointed at its root (the SDK adds /v1beta), with the API key set. */
export const geminiSetup = (
  options: {
    readonly provider?: Partial<ResolvedProvider>
    readonly capabilities?: Partial<ModelCapabilities>
    readonly env?: Record<string, string>
  } = {}
) =>
  Effect.map(fakeLlm, (fake): GeminiSetup => {
    const model = geminiModel(fake.url, options.provider, options.capabilities)
    return { fake, model, client: makeGeminiClient(model, options.env ?? { [keyEnv]: "gm-test-key" }) }
  })

export const streamPath = "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"

export const ofType = <T extends ModelEvent["type"]>(events: ReadonlyArray<ModelEvent>, type: T) =>
  events.filter((event): event is Extract<ModelEvent, { type: T }> => event.type === type)

export const sseHeaders = { "content-type": "text/event-stream" }

/** One raw SSE frame of a GenerateContentResponse. */
export const geminiFrame = (parts: ReadonlyArray<object>, extra: { readonly finishReason?: string; readonly usageMetadata?: object } = {}) =>
  `data: ${JSON.stringify({
    candidates: [
      { content: { parts, role: "model" }, ...(extra.finishReason === undefined ? {} : { finishReason: extra.finishReason }), index: 0 }
    ],
    ...(extra.usageMetadata === undefined ? {} : { usageMetadata: extra.usageMetadata })
  })}\r\n\r\n`
