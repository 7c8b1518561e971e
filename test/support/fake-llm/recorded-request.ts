/** One HTTP request as the fake server received it. */
export interface RecordedRequest {
  /** 1-based, in order of arrival. */
  readonly index: number
  readonly method: string
  /** Path and query string as sent, e.g. "/v1/chat/completions". */
  readonly path: string
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  readonly body: unknown
  readonly rawBody: string
  /** Epoch milliseconds with sub-millisecond precision (comparable to Date.now()). */
  readonly receivedAt: number
  /** Name of the protocol module that answered, if any route matched. */
  readonly protocol: string | undefined
  /** Settles when the connection carrying the response closes, for whatever reason. */
  readonly closed: Promise<ConnectionClosed>
}

export interface ConnectionClosed {
  readonly at: number
  /** True when the client went away (or the server cut it) before the response was complete. */
  readonly beforeReplyFinished: boolean
}

export const preciseNow = (): number => performance.timeOrigin + performance.now()
