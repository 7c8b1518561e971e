/** The Responses adapter against a scoped fake server, for the openai-responses-*.test.ts files. */
import * as Effect from "effect/Effect"
import type { ModelEntry, ResolvedProvider } from "../../../src/providers/catalog.ts"
import type { ModelClientShape, ModelEvent } from "../../../src/providers/model-client.ts"
import { makeOpenAIResponsesClient } from "../../../src/providers/openai-responses.ts"
import type { FakeLlm } from "../../support/fake-llm/server.ts"
import { fakeLlm, keyEnv } from "./fixtures.ts"

export const responsesModel = (
  baseURL: string,
  provider: Partial<ResolvedProvider> = {},
  capabilities: Partial<ModelEntry["capabilities"]> = {}
): ModelEntry => ({
  ref: "openai/gpt-test",
  id: "gpt-test",
  provider: { name: "openai", protocol: "openai-responses", baseURL, apiKeyEnv: [keyEnv], headers: {}, ...provider },
  capabilities: { contextWindow: 400_000, maxOutputTokens: 8_192, imageInput: true, reasoning: true, ...capabilities },
  listed: true
})

export interface ResponsesSetup {
  readonly fake: FakeLlm
  readonly model: ModelEntry
  readonly client: ModelClientShape
}

export const responsesSetup = (
  options: {
    readonly provider?: Partial<ResolvedProvider>
    readonly capabilities?: Partial<ModelEntry["capabilities"]>
    readonly env?: Record<string, string>
  } = {}
) =>
  Effect.map(fakeLlm, (fake): ResponsesSetup => {
    const model = responsesModel(`${fake.url}/v1`, options.provider, options.capabilities)
    return { fake, model, client: makeOpenAIResponsesClient(model, options.env ?? { [keyEnv]: "sk-test" }) }
  })

export const ofType = <T extends ModelEvent["type"]>(events: ReadonlyArray<ModelEvent>, type: T) =>
  events.filter((event): event is Extract<ModelEvent, { type: T }> => event.type === type)

/** One SSE frame of the Responses wire, for hand-made streams. */
export const responsesFrame = (event: Record<string, unknown>): string =>
  `event: ${String(event["type"])}\ndata: ${JSON.stringify(event)}\n\n`

export const sseHeaders = { "content-type": "text/event-stream" }
