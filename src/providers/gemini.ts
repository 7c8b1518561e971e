/**
 * The Gemini GenerateContent adapter (generativelanguage.googleapis.com and servers that speak its
 * protocol) over the official `@google/genai` SDK, which is loaded on first use.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as StreamEmit from "effect/StreamEmit"
import type { GoogleGenAI } from "@google/genai"
import { readApiKey, type ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import { missingApiKey, missingBaseURL, streamCut } from "./http-errors.ts"
import type { ModelClientShape, ModelEvent } from "./model-client.ts"
import { makeGeminiStreamDecoder } from "./gemini-decode.ts"
import { toProviderError } from "./gemini-errors.ts"
import { geminiRequest, type GeminiRequest } from "./gemini-encode.ts"

type Env = Readonly<Record<string, string | undefined>>
type GenAISdk = typeof import("@google/genai")
type Emit = StreamEmit.Emit<never, ProviderError, ModelEvent, void>

interface Connection {
  readonly sdk: GenAISdk
  readonly client: GoogleGenAI
}

/** Events buffered ahead of the consumer before the HTTP read pauses. */
const bufferSize = 16

const newCallId = (): string => `call_${crypto.randomUUID().replaceAll("-", "")}`

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
  const sdk = await import("@google/genai")
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
          ...(apiKey === undefined ? { fetch: withoutApiKeyHeader } : {})
        }
      })
  )
  return { sdk, client }
}

/** Reads the SDK stream into `emit`, pausing whenever the consumer's buffer is full. */
const pump = async (
  model: ModelEntry,
  { sdk, client }: Connection,
  params: GeminiRequest,
  signal: AbortSignal,
  emit: Emit
): Promise<void> => {
  const decoder = makeGeminiStreamDecoder(newCallId)
  let responded = false
  try {
    const chunks = await client.models.generateContentStream({
      ...params,
      config: {
        ...params.config,
        abortSignal: signal,
        // Tool calls are the engine's to run, and a cut stream is reported, not silently resumed.
        automaticFunctionCalling: { disable: true },
        automaticContinuation: false
      }
    })
    responded = true
    for await (const chunk of chunks) {
      for (const event of decoder.push(chunk)) await emit.single(event)
    }
    if (signal.aborted) return
    const closing = decoder.finish()
    if (closing === undefined) {
      await emit.fail(streamCut(model))
      return
    }
    for (const event of closing) await emit.single(event)
    await emit.end()
  } catch (error) {
    // Only the stream's release aborts: nobody is listening any more.
    if (signal.aborted) return
    await emit.fail(toProviderError(model, sdk.ApiError, error, responded))
  }
}

const nothingToSend = (model: ModelEntry): ProviderError =>
  new ProviderError({
    kind: "bad_request",
    provider: model.provider.name,
    message: `nothing to send to ${model.provider.name}: the conversation has no message for the model`
  })

/** A ModelClient for one Gemini model; the API key is read from `env`. */
export const makeGeminiClient = (model: ModelEntry, env: Env): ModelClientShape => {
  let connection: Promise<Connection> | undefined

  const connect = Effect.suspend(() => {
    if (connection === undefined) {
      if (model.provider.baseURL === "") return Effect.fail(missingBaseURL(model))
      const apiKey = readApiKey(model.provider, env)
      if (apiKey === undefined && model.provider.apiKeyEnv.length > 0) return Effect.fail(missingApiKey(model))
      connection = openConnection(model, apiKey)
    }
    const opened = connection
    return Effect.promise(() => opened)
  })

  return {
    stream: (request) =>
      Stream.asyncScoped<ModelEvent, ProviderError>(
        (emit) =>
          Effect.gen(function* () {
            const params = geminiRequest(request)
            if (params.contents.length === 0) return yield* Effect.fail(nothingToSend(model))
            const opened = yield* connect
            const controller = new AbortController()
            yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
            void pump(model, opened, params, controller.signal, emit)
          }),
        { bufferSize, strategy: "suspend" }
      )
  }
}
