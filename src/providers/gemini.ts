/**
 * The Gemini GenerateContent adapter (generativelanguage.googleapis.com and servers that speak its
 * protocol) over the official `@google/genai` SDK, which is loaded on first use.
 */
import type { GoogleGenAI } from "@google/genai/web"
import type { ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import { cancelled } from "./http-errors.ts"
import type { ModelClientShape } from "./model-client.ts"
import { makeGeminiStreamDecoder } from "./gemini-decode.ts"
import { toProviderError } from "./gemini-errors.ts"
import { geminiRequest } from "./gemini-encode.ts"
import { makeStreamingClient, newCallId, type Env } from "./streaming-client.ts"
import { withStreamedImages } from "../media/streamed-body.ts"

type GenAISdk = typeof import("@google/genai/web")

interface Connection {
  readonly sdk: GenAISdk
  readonly client: GoogleGenAI
}

/**
 * The SDK insists on a key and otherwise falls back to Google Cloud credentials. A keyless server
 * gets a placeholder that a wrapped fetch removes again, so no key header is ever sent.
 */
const keylessPlaceholder = "crystal-no-api-key"
const apiKeyHeader = "x-goog-api-key"

const withoutApiKeyHeader = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const headers = new Headers(init?.headers)
  headers.delete(apiKeyHeader)
  return fetch(input, { ...init, headers })
}

/** "https://host/v1beta" names its API version; "https://host" gets the SDK's default, v1beta. */
export const splitApiVersion = (baseURL: string): { readonly baseUrl: string; readonly apiVersion: string } => {
  const trimmed = baseURL.replace(/\/+$/, "")
  const match = /^(.*)\/(v\d+(?:alpha|beta)?\d*)$/.exec(trimmed)
  return match?.[1] !== undefined && match[2] !== undefined
    ? { baseUrl: match[1], apiVersion: match[2] }
    : { baseUrl: trimmed, apiVersion: "v1beta" }
}

/**
 * The constructor reads GOOGLE_API_KEY and GEMINI_API_KEY even when given a key, and warns on the
 * terminal when both are set; it is synchronous, so silencing the console around it silences only it.
 */
const quietly = <A>(construct: () => A): A => {
  const { warn, debug } = console
  console.warn = () => {}
  console.debug = () => {}
  try {
    return construct()
  } finally {
    console.warn = warn
    console.debug = debug
  }
}

const openConnection = async (model: ModelEntry, apiKey: string | undefined): Promise<Connection> => {
  // The SDK's fetch-based build: the Node build adds Google Cloud auth, file uploads and the live
  // websocket API (~170 KB more in the binary, loaded at every start) that an API-key client never uses.
  const sdk = await import("@google/genai/web")
  const { baseUrl, apiVersion } = splitApiVersion(model.provider.baseURL)
  const client = quietly(
    () =>
      new sdk.GoogleGenAI({
        // Explicit values, so GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GEMINI_BASE_URL and the key variables
        // of the environment cannot redirect this provider's requests.
        vertexai: false,
        apiKey: apiKey ?? keylessPlaceholder,
        apiVersion,
        httpOptions: {
          baseUrl,
          apiVersion,
          headers: { ...model.provider.headers },
          fetch: withStreamedImages(apiKey === undefined ? withoutApiKeyHeader : fetch)
        }
      })
  )
  return { sdk, client }
}

const nothingToSend = (model: ModelEntry): ProviderError =>
  new ProviderError({
    kind: "bad_request",
    provider: model.provider.name,
    message: `nothing to send to ${model.provider.name}: the conversation has no message for the model`
  })

/** A ModelClient for one Gemini model; the API key is read from `env`. */
export const makeGeminiClient = (model: ModelEntry, env: Env): ModelClientShape =>
  makeStreamingClient({
    model,
    env,
    open: (apiKey) => openConnection(model, apiKey),
    encode: (request) => {
      const params = geminiRequest(request)
      return params.contents.length === 0 ? nothingToSend(model) : params
    },
    send: ({ client }, params, signal) =>
      client.models.generateContentStream({
        ...params,
        config: {
          ...params.config,
          abortSignal: signal,
          // Tool calls are the engine's to run, and a cut stream is reported, not silently resumed.
          automaticFunctionCalling: { disable: true },
          automaticContinuation: false
        }
      }),
    decoder: () => makeGeminiStreamDecoder(newCallId),
    // Only the stream's release aborts: nobody is listening any more.
    toProviderError: (error, { aborted, responded }, { sdk }) =>
      aborted ? cancelled(model) : toProviderError(model, sdk.ApiError, error, responded)
  })
