/** Shared pieces of the Anthropic adapter tests: a model entry and a client against the fake server. */
import * as Effect from "effect/Effect"
import { makeAnthropicClient } from "../../../src/providers/anthropic.ts"
import type { ModelCapabilities, ModelEntry, ResolvedProvider } from "../../../src/providers/catalog.ts"
import type { ModelClientShape, ModelEvent } from "../../../src/providers/model-client.ts"
import { anthropicEvent } from "../../support/fake-llm/anthropic.ts"
import type { FakeLlm } from "../../support/fake-llm/server.ts"
import { fakeLlm, keyEnv } from "./fixtures.ts"

export const anthropicModel = (
  baseURL: string,
  provider: Partial<ResolvedProvider> = {},
  capabilities: Partial<ModelCapabilities> = {}
): ModelEntry => ({
  ref: "claude/test-claude",
  id: "test-claude",
  provider: { name: "claude", protocol: "anthropic", baseURL, apiKeyEnv: [keyEnv], headers: {}, ...provider },
  capabilities: { contextWindow: 200_000, maxOutputTokens: 8_192, imageInput: true, reasoning: false, ...capabilities },
  listed: true
})

export interface AnthropicSetup {
  readonly fake: FakeLlm
  readonly model: ModelEntry
  readonly client: ModelClientShape
}

/** A fake server and a client pointed at its root (the SDK adds /v1/messages), with the API key set. */
export const anthropicSetup = (
  options: {
    readonly provider?: Partial<ResolvedProvider>
    readonly capabilities?: Partial<ModelCapabilities>
    readonly env?: Record<string, string>
  } = {}
) =>
  Effect.map(fakeLlm, (fake): AnthropicSetup => {
    const model = anthropicModel(fake.url, options.provider, options.capabilities)
    return { fake, model, client: makeAnthropicClient(model, options.env ?? { [keyEnv]: "sk-ant-test" }) }
  })

export const ofType = <T extends ModelEvent["type"]>(events: ReadonlyArray<ModelEvent>, type: T) =>
  events.filter((event): event is Extract<ModelEvent, { type: T }> => event.type === type)

export const sseHeaders = { "content-type": "text/event-stream; charset=utf-8" }

/** Raw events for tests that script a stream by hand. */
export const messageStart = (usage: object = { input_tokens: 3, output_tokens: 1 }) =>
  anthropicEvent("message_start", {
    message: {
      id: "msg_raw",
      type: "message",
      role: "assistant",
      model: "test-claude",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage
    }
  })

export const messageEnd = (stopReason: string, usage: object) => [
  anthropicEvent("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage }),
  anthropicEvent("message_stop", {})
]
