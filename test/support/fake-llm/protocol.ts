import type { RecordedRequest } from "./recorded-request.ts"
import type { ErrorReply, ModelReply } from "./reply.ts"

/** A streamed response as frames: the server writes them in order, timed and possibly cut. */
export interface StreamedResponse {
  readonly contentType: string
  readonly frames: ReadonlyArray<string>
}

/**
 * One wire protocol of the fake server: where it listens and how a reply looks on its wire.
 * Pure: no sockets, no timers.
 */
export interface WireProtocol {
  readonly name: string
  readonly handles: (method: string, pathname: string) => boolean
  readonly wantsStream: (request: RecordedRequest) => boolean
  readonly stream: (reply: ModelReply, request: RecordedRequest) => StreamedResponse
  /** The JSON document answering a non-streaming request. */
  readonly complete: (reply: ModelReply, request: RecordedRequest) => unknown
  /** The JSON error document the real service sends for this status. */
  readonly errorBody: (error: ErrorReply, request: RecordedRequest) => unknown
}
