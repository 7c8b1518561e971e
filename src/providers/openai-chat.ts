/**
 * The OpenAI-compatible Chat Completions adapter (api.openai.com, vLLM, llama.cpp, LM Studio,
 * OpenRouter and the like) over the official `openai` SDK, which is loaded on first use.
 */
import type { ModelEntry } from "./catalog.ts"
import type { ModelClientShape } from "./model-client.ts"
import { makeChatStreamDecoder } from "./openai-chat-decode.ts"
import { chatRequestBody } from "./openai-chat-encode.ts"
import { openAIConnectionSetup, toProviderError } from "./openai-sdk.ts"
import { unwrapAnswerText } from "./object-root-schema.ts"
import { makeStreamingClient, newCallId, type Env } from "./streaming-client.ts"

/** A ModelClient for one model of an OpenAI-compatible provider; the API key is read from `env`. */
export const makeOpenAIChatClient = (model: ModelEntry, env: Env): ModelClientShape => {
  const client = makeStreamingClient({
    ...openAIConnectionSetup(model, env),
    encode: chatRequestBody,
    send: ({ client }, body, signal) => client.chat.completions.create(body, { signal }),
    decoder: () => makeChatStreamDecoder(newCallId),
    toProviderError: (error, state, { sdk }) => toProviderError(model, sdk, error, state)
  })
  // A non-object --output-schema went in a wrapper object (json_schema takes only objects).
  return { stream: (request) => unwrapAnswerText(request.outputSchema)(client.stream(request)) }
}
