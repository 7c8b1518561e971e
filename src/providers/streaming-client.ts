/**
 * The streaming plumbing every protocol adapter shares: the SDK client opened once, on the first
 * request, after the base-URL and API-key checks; one `Stream.asyncScoped` per request whose
 * release aborts the HTTP request; and the read loop that feeds the adapter's decoder into the
 * stream with backpressure. An adapter supplies only what is specific to its wire: how to open
 * its SDK, the request body, the call that sends it, the decoder and its own error mapping.
 * No SDK is imported here; each adapter's `open` loads its own on first use.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as StreamEmit from "effect/StreamEmit"
import { readApiKey, type ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import { missingApiKey, missingBaseURL, streamCut } from "./http-errors.ts"
import type { ModelClientShape, ModelEvent, ModelRequest } from "./model-client.ts"

export type Env = Readonly<Record<string, string | undefined>>
export type Emit = StreamEmit.Emit<never, ProviderError, ModelEvent, void>

/** Batches of events buffered ahead of the consumer before the HTTP read pauses. */
const bufferSize = 16
/** Events in one batch at most; a full batch is handed over at once. */
const maxBatch = 64
/** How long the first event of a batch may wait for company: too short to see, long enough to batch a burst. */
const batchDelayMs = 1

/** An id for a tool call the wire sends without one. */
export const newCallId = (): string => `call_${crypto.randomUUID().replaceAll("-", "")}`

/** Wire events of one response → ModelEvents; a fresh one for every response. */
export interface WireDecoder<E> {
  readonly push: (event: E) => ReadonlyArray<ModelEvent>
  /** A failure the provider reported inside the stream, checked after every event; it ends the stream. */
  readonly failure?: () => ProviderError | undefined
  /** The closing events, or undefined when the wire never said it was done: the stream was cut. */
  readonly finish: () => ReadonlyArray<ModelEvent> | undefined
}

/** Where a request stood when something was thrown. */
export interface FailureState {
  /** The stream's release aborted the request: nobody is listening any more. */
  readonly aborted: boolean
  /** The response had started, so a failure now cut its body rather than the connection. */
  readonly responded: boolean
}

export interface StreamingAdapter<C, B, E> {
  readonly model: ModelEntry
  /** Where the API key is read from, on the first request. */
  readonly env: Env
  /**
   * Loads the SDK and makes its client, once, on the first request; `apiKey` is undefined for a
   * provider that takes no key.
   */
  readonly open: (apiKey: string | undefined) => Promise<C>
  /**
   * The adapter's own error for an `open` that failed. Without it such a failure is a defect, as
   * for an SDK whose set-up cannot fail on anything the operator controls.
   */
  readonly setupFailed?: (error: unknown) => ProviderError
  /** The wire body of a request, or the reason it cannot be sent (checked before connecting). */
  readonly encode: (request: ModelRequest) => B | ProviderError
  /** Sends the body; resolves once the response has started, to its wire events. */
  readonly send: (connection: C, body: B, signal: AbortSignal) => Promise<AsyncIterable<E>>
  readonly decoder: () => WireDecoder<E>
  /** Whatever `send`, the iteration or the decoder threw, as the adapter's SDK means it. */
  readonly toProviderError: (error: unknown, state: FailureState, connection: C) => ProviderError
}

/**
 * Hands events to the stream in batches: every hand-over costs a fiber, which per token would
 * cost more than decoding the token. A batch goes when it is full or after `batchDelayMs`, in
 * order; awaiting a full batch is the backpressure.
 */
const makeBatcher = (emit: Emit) => {
  const pending: Array<ModelEvent> = []
  let timer: ReturnType<typeof setTimeout> | undefined
  let handedOver: Promise<unknown> = Promise.resolve()
  const flush = (): Promise<unknown> => {
    if (timer !== undefined) {
      clearTimeout(timer)
      timer = undefined
    }
    if (pending.length > 0) {
      const batch = Chunk.unsafeFromArray(pending.splice(0))
      handedOver = handedOver.then(() => emit.chunk(batch))
    }
    return handedOver
  }
  return {
    add: (events: ReadonlyArray<ModelEvent>): Promise<unknown> | undefined => {
      if (events.length === 0) return undefined
      pending.push(...events)
      if (pending.length >= maxBatch) return flush()
      timer ??= setTimeout(() => void flush(), batchDelayMs)
      return undefined
    },
    flush
  }
}

/** Reads the SDK stream into `emit`, pausing whenever the consumer's buffer is full. */
const pump = async <C, B, E>(
  adapter: StreamingAdapter<C, B, E>,
  connection: C,
  body: B,
  signal: AbortSignal,
  emit: Emit
): Promise<void> => {
  const decoder = adapter.decoder()
  const batcher = makeBatcher(emit)
  let responded = false
  try {
    const events = await adapter.send(connection, body, signal)
    responded = true
    for await (const event of events) {
      const full = batcher.add(decoder.push(event))
      if (full !== undefined) await full
      const failure = decoder.failure?.()
      if (failure !== undefined) {
        await batcher.flush()
        await emit.fail(failure)
        return
      }
    }
    // The SDK ends the iteration quietly when aborted; the consumer is gone then.
    if (signal.aborted) return
    const closing = decoder.finish()
    if (closing === undefined) {
      await batcher.flush()
      await emit.fail(streamCut(adapter.model))
      return
    }
    batcher.add(closing)
    await batcher.flush()
    await emit.end()
  } catch (error) {
    // What arrived before the failure still counts (it is saved as the partial answer).
    await batcher.flush()
    // Only the stream's release aborts, so an aborted request's failure reaches nobody; the
    // adapter maps it all the same.
    await emit.fail(adapter.toProviderError(error, { aborted: signal.aborted, responded }, connection))
  }
}

/** A ModelClient for one model over an adapter's wire; the API key is read from `env` when first needed. */
export const makeStreamingClient = <C, B, E>(adapter: StreamingAdapter<C, B, E>): ModelClientShape => {
  const { model, env, setupFailed } = adapter
  let connection: Promise<C> | undefined

  const connect = Effect.suspend(() => {
    if (connection === undefined) {
      if (model.provider.baseURL === "") return Effect.fail(missingBaseURL(model))
      const apiKey = readApiKey(model.provider, env)
      if (apiKey === undefined && model.provider.apiKeyEnv.length > 0) return Effect.fail(missingApiKey(model))
      connection = adapter.open(apiKey)
    }
    const opened = connection
    return setupFailed === undefined ? Effect.promise(() => opened) : Effect.tryPromise({ try: () => opened, catch: setupFailed })
  })

  return {
    stream: (request) =>
      Stream.asyncScoped<ModelEvent, ProviderError>(
        (emit) =>
          Effect.gen(function* () {
            const body = adapter.encode(request)
            if (body instanceof ProviderError) return yield* Effect.fail(body)
            const opened = yield* connect
            const controller = new AbortController()
            yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
            void pump(adapter, opened, body, controller.signal, emit)
          }),
        { bufferSize, strategy: "suspend" }
      )
  }
}
