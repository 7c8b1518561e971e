/**
 * The OpenAI Responses adapter (api.openai.com and servers that speak /v1/responses) over the
 * official `openai` SDK, which is loaded on first use. Stateless: `store: false`, with reasoning
 * carried in the transcript as encrypted content (see openai-responses-encode.ts).
 */
import type { ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import { isContextTooLong } from "./http-errors.ts"
import type { ModelClientShape } from "./model-client.ts"
import { makeResponsesStreamDecoder, type WireFailure } from "./openai-responses-decode.ts"
import { responsesRequestBody } from "./openai-responses-encode.ts"
import { openAIConnectionSetup, toProviderError } from "./openai-sdk.ts"
import { unwrapAnswerText } from "./object-root-schema.ts"
import { makeStreamingClient, type Env } from "./streaming-client.ts"

const rateLimitCodes = new Set(["rate_limit_exceeded", "too_many_requests"])
const serverCodes = new Set(["server_error", "internal_error", "vector_store_timeout"])

/** OpenAI's rate-limit messages end with "Please try again in 6.57s." (or "in 120ms"). */
const retryAfterFromMessage = (message: string | undefined): number | undefined => {
  const match = /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message ?? "")
  if (match === null) return undefined
  const value = Number(match[1])
  return match[2]?.toLowerCase() === "ms" ? value : Math.round(value * 1000)
}

/** A failure reported inside a stream that had started fine: response.failed or an error event. */
const responseFailed = (model: ModelEntry, failure: WireFailure): ProviderError => {
  const { name } = model.provider
  const said = failure.message ?? "no details given"
  const code = failure.code
  const make = (kind: ProviderError["kind"], message: string, retryAfterMs?: number) =>
    new ProviderError({ kind, message, provider: name, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })
  if (code !== undefined && rateLimitCodes.has(code)) {
    return make("rate_limited", `${name} rate limit reached (${said})`, retryAfterFromMessage(failure.message))
  }
  if (isContextTooLong(failure)) return make("context_too_long", `the conversation is too long for model '${model.id}' (${said})`)
  if (code === "insufficient_quota") return make("permission", `${name} refused the request: the account is out of quota (${said})`)
  if (code === undefined || serverCodes.has(code)) {
    return make("server", `${name} reported an error during the response: ${said}`)
  }
  return make("bad_request", `${name} rejected the request (${code}: ${said})`)
}

/** A ModelClient for one model of a Responses API provider; the API key is read from `env`. */
export const makeOpenAIResponsesClient = (model: ModelEntry, env: Env): ModelClientShape => {
  const client = makeStreamingClient({
    ...openAIConnectionSetup(model, env),
    encode: responsesRequestBody,
    send: ({ client }, body, signal) => client.responses.create(body, { signal }),
    decoder: () => {
      const decoder = makeResponsesStreamDecoder()
      return {
        push: decoder.push,
        failure: () => {
          const failure = decoder.failure()
          return failure === undefined ? undefined : responseFailed(model, failure)
        },
        // response.completed and response.incomplete carry everything; nothing is left to close.
        finish: () => (decoder.finished() ? [] : undefined)
      }
    },
    toProviderError: (error, state, { sdk }) =>
      toProviderError(model, sdk, error, state, {
        streamError: (failure) => responseFailed(model, failure),
        streamUnit: "event"
      })
  })
  // A non-object --output-schema went in a wrapper object (json_schema takes only objects).
  return { stream: (request) => unwrapAnswerText(request.outputSchema)(client.stream(request)) }
}
