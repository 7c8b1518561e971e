/** Shared pieces of the provider tests: a model entry, a request and a scoped fake server. */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ModelEntry, ResolvedProvider } from "../../../src/providers/catalog.ts"
import type { ModelClientShape, ModelEvent, ModelRequest } from "../../../src/providers/model-client.ts"
import { makeOpenAIChatClient } from "../../../src/providers/openai-chat.ts"
import type { ProviderError } from "../../../src/providers/errors.ts"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"

export const keyEnv = "CRYSTAL_TEST_LLM_KEY"

export const chatModel = (baseURL: string, provider: Partial<ResolvedProvider> = {}): ModelEntry => ({
  ref: "local/test-model",
  id: "test-model",
  provider: { name: "local", protocol: "openai-chat", baseURL, apiKeyEnv: [keyEnv], headers: {}, ...provider },
  capabilities: { contextWindow: 32_768, maxOutputTokens: 4_096, imageInput: false, reasoning: false },
  listed: true
})

export const requestFor = (model: ModelEntry, overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: "You are terse.",
  items: [{ _tag: "user", id: "u1", text: "hello" }],
  tools: [],
  model,
  ...overrides
})

/** A fake server for the test's scope, closed when the test ends. */
export const fakeLlm: Effect.Effect<FakeLlm, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(() => startFakeLlm()),
  (fake) => Effect.promise(() => fake.close())
)

export interface ChatSetup {
  readonly fake: FakeLlm
  readonly model: ModelEntry
  readonly client: ModelClientShape
}

/** A fake server and a client pointed at its /v1, with the API key set. */
export const chatSetup = (provider: Partial<ResolvedProvider> = {}, env: Record<string, string> = { [keyEnv]: "sk-test" }) =>
  Effect.map(fakeLlm, (fake): ChatSetup => {
    const model = chatModel(`${fake.url}/v1`, provider)
    return { fake, model, client: makeOpenAIChatClient(model, env) }
  })

export const collect = (stream: Stream.Stream<ModelEvent, ProviderError>) =>
  Stream.runCollect(stream).pipe(Effect.map(Chunk.toReadonlyArray))

export const collectFailure = (stream: Stream.Stream<ModelEvent, ProviderError>) => Effect.flip(Stream.runDrain(stream))
