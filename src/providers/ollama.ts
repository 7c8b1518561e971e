/**
 * The Ollama adapter (POST /api/chat, one JSON object a line) over the official `ollama` SDK,
 * which is loaded on first use.
 *
 * The SDK takes no AbortSignal, no retry or logging settings, and throws a bare Error with the
 * status for HTTP failures. So the client gets a fetch of ours, which is where this adapter meets
 * the network: it aborts with the stream's own signal, decides the Authorization header, keeps
 * the status, headers and message of an HTTP failure, and keeps the SDK from logging a failed
 * response or a stream that ends mid-line.
 */
import { AsyncLocalStorage } from "node:async_hooks"
import type { ChatRequest, Ollama } from "ollama/browser"
import type { ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import {
  cancelled,
  connectionFailed,
  isContextTooLong,
  messageFromErrorBody,
  providerErrorFromHttp,
  rootCauseMessage,
  streamCut
} from "./http-errors.ts"
import type { ModelClientShape } from "./model-client.ts"
import { makeOllamaStreamDecoder } from "./ollama-decode.ts"
import { ollamaRequestBody } from "./ollama-encode.ts"
import { makeStreamingClient, newCallId, type Env, type FailureState } from "./streaming-client.ts"
import { withStreamedImages } from "../media/streamed-body.ts"

/** A non-2xx answer, caught in our fetch before the SDK turns it into a bare Error. */
class OllamaHttpFailure extends Error {
  readonly status: number
  readonly headers: Headers
  readonly providerMessage: string | undefined

  constructor(status: number, headers: Headers, providerMessage: string | undefined) {
    super(`HTTP ${status}`)
    this.status = status
    this.headers = headers
    this.providerMessage = providerMessage
  }
}

/** The body ended without the newline that closes every Ollama line: the connection was cut. */
class TruncatedLine extends Error {}

/** What the SDK throws when the body ends before the `done` object (utils.ts of ollama-js). */
const noDoneMessage = "Did not receive done or success response in stream."

/** The abort signal of the stream whose request is being sent: the SDK's chat() takes none. */
const requestSignal = new AsyncLocalStorage<AbortSignal>()

const readErrorMessage = async (response: Response): Promise<string | undefined> => {
  const text = await response.text().catch(() => "")
  try {
    return messageFromErrorBody(JSON.parse(text)) ?? messageFromErrorBody(text)
  } catch {
    return messageFromErrorBody(text)
  }
}

/** Passes the body through, failing it when the last byte is not the newline ending an Ollama line. */
const guardLastLine = (body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> => {
  let lastByte: number | undefined
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (chunk.length > 0) lastByte = chunk[chunk.length - 1]
        controller.enqueue(chunk)
      },
      flush(controller) {
        if (lastByte !== undefined && lastByte !== 0x0a) controller.error(new TruncatedLine())
      }
    })
  )
}

const headerValue = (headers: Readonly<Record<string, string>>, name: string): string | undefined =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]

/**
 * The fetch the SDK calls. Authorization is exactly ours: the API key when the provider names one,
 * else what its configured headers say, else none (the SDK would add OLLAMA_API_KEY on its own for
 * https://ollama.com).
 */
const sendWithImages = withStreamedImages(fetch)

const makeFetch =
  (authorization: string | undefined) =>
  async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers)
    if (authorization === undefined) headers.delete("authorization")
    else headers.set("authorization", authorization)
    const ours = requestSignal.getStore()
    const signal = ours === undefined ? init?.signal : init?.signal ? AbortSignal.any([ours, init.signal]) : ours
    const response = await sendWithImages(input, { ...init, headers, ...(signal ? { signal } : {}) })
    if (!response.ok) throw new OllamaHttpFailure(response.status, response.headers, await readErrorMessage(response))
    return response.body === null ? response : new Response(guardLastLine(response.body), response)
  }

const openConnection = async (model: ModelEntry, apiKey: string | undefined): Promise<Ollama> => {
  // The browser build: the Node build reads a local file when an image string happens to name one.
  const sdk = await import("ollama/browser")
  const authorization = apiKey !== undefined ? `Bearer ${apiKey}` : headerValue(model.provider.headers, "authorization")
  return new sdk.Ollama({
    host: model.provider.baseURL,
    headers: { ...model.provider.headers },
    // The SDK only calls it; under Bun `typeof fetch` also declares preconnect, which it never uses.
    fetch: makeFetch(authorization) as typeof fetch
  })
}

const failure = (model: ModelEntry, kind: ProviderError["kind"], message: string, status?: number): ProviderError =>
  new ProviderError({ kind, message, provider: model.provider.name, ...(status === undefined ? {} : { status }) })

const httpError = (model: ModelEntry, error: OllamaHttpFailure): ProviderError => {
  const mapped = providerErrorFromHttp(model, { status: error.status, headers: error.headers, message: error.providerMessage })
  if (error.status !== 404 || !/model/i.test(error.providerMessage ?? "")) return mapped
  return failure(
    model,
    "not_found",
    `${model.provider.name} at ${model.provider.baseURL} does not have the model '${model.id}' ` +
      `(HTTP 404: ${error.providerMessage ?? "not found"}); download it with \`ollama pull ${model.id}\``,
    404
  )
}

/** An `{"error": ...}` line in a stream that had started fine. */
const streamedError = (model: ModelEntry, message: string): ProviderError =>
  isContextTooLong({ message })
    ? failure(model, "context_too_long", `the conversation is too long for model '${model.id}' (${message})`)
    : failure(model, "server", `${model.provider.name} reported an error during the response: ${message}`)

const toProviderError = (
  model: ModelEntry,
  error: unknown,
  state: FailureState
): ProviderError => {
  if (state.aborted) return cancelled(model)
  if (error instanceof OllamaHttpFailure) return httpError(model, error)
  if (error instanceof TruncatedLine) return streamCut(model)
  if (!state.responded) {
    const base = connectionFailed(model, rootCauseMessage(error))
    return failure(model, "network", `${base.message}; is Ollama running there? Start it with \`ollama serve\``)
  }
  // The SDK rethrows an `{"error": ...}` line as a plain Error; anything else broke the body.
  if (error instanceof Error && error.constructor === Error && error.message !== noDoneMessage) {
    return streamedError(model, error.message)
  }
  return streamCut(model)
}

/** A ModelClient for one model of an Ollama server; an API key is only read when the provider names one. */
export const makeOllamaClient = (model: ModelEntry, env: Env): ModelClientShape =>
  makeStreamingClient({
    model,
    env,
    open: (apiKey) => openConnection(model, apiKey),
    encode: ollamaRequestBody,
    send: (client, body, signal) => {
      // The SDK's types narrow tool parameters to a few JSON Schema keys; the wire takes any schema.
      const request = body as unknown as ChatRequest & { stream: true }
      return requestSignal.run(signal, () => client.chat(request))
    },
    decoder: () => makeOllamaStreamDecoder(newCallId),
    toProviderError: (error, state) => toProviderError(model, error, state)
  })
