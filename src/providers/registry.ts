import * as Effect from "effect/Effect"
import type { ModelEntry } from "./catalog.ts"
import type { ModelClientShape } from "./model-client.ts"
import { preconnect } from "./preconnect.ts"

type Env = Readonly<Record<string, string | undefined>>

/** The adapter for the entry's wire protocol, loaded on first use so no SDK is on the start-up path it does not need. */
export const makeModelClient = (entry: ModelEntry, env: Env): Effect.Effect<ModelClientShape> => {
  preconnect(entry.provider.baseURL)
  switch (entry.provider.protocol) {
    case "openai-chat":
      return Effect.promise(() => import("./openai-chat.ts")).pipe(Effect.map((adapter) => adapter.makeOpenAIChatClient(entry, env)))
    case "anthropic":
      return Effect.promise(() => import("./anthropic.ts")).pipe(Effect.map((adapter) => adapter.makeAnthropicClient(entry, env)))
    case "deepseek":
      return Effect.promise(() => import("./deepseek.ts")).pipe(Effect.map((adapter) => adapter.makeDeepSeekClient(entry, env)))
    case "gemini":
      return Effect.promise(() => import("./gemini.ts")).pipe(Effect.map((adapter) => adapter.makeGeminiClient(entry, env)))
    case "ollama":
      return Effect.promise(() => import("./ollama.ts")).pipe(Effect.map((adapter) => adapter.makeOllamaClient(entry, env)))
    case "openai-responses":
      return Effect.promise(() => import("./openai-responses.ts")).pipe(Effect.map((adapter) => adapter.makeOpenAIResponsesClient(entry, env)))
  }
}
