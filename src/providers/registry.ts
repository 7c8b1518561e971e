import * as Effect from "effect/Effect"
import type { ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import type { ModelClientShape } from "./model-client.ts"
import { preconnect } from "./preconnect.ts"

type Env = Readonly<Record<string, string | undefined>>

/** The adapter for the entry's wire protocol, loaded on first use so no SDK is on the start-up path it does not need. */
export const makeModelClient = (entry: ModelEntry, env: Env): Effect.Effect<ModelClientShape, ProviderError> => {
  preconnect(entry.provider.baseURL)
  switch (entry.provider.protocol) {
    case "openai-chat":
      return Effect.promise(() => import("./openai-chat.ts")).pipe(Effect.map((adapter) => adapter.makeOpenAIChatClient(entry, env)))
    default:
      return Effect.fail(
        new ProviderError({
          kind: "unsupported",
          provider: entry.provider.name,
          message: `provider '${entry.provider.name}' speaks the ${entry.provider.protocol} protocol, which this build of Crystal cannot use yet; configure an openai-chat provider instead`
        })
      )
  }
}
