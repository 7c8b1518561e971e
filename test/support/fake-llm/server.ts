/**
 * A fake LLM HTTP server for tests and benchmarks: scripted replies in, recorded requests out.
 * node:http only, so it runs under Node and Bun alike.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import type { WireProtocol } from "./protocol.ts"
import { protocols } from "./protocols.ts"
import { preciseNow, type ConnectionClosed, type RecordedRequest } from "./recorded-request.ts"
import type { ErrorReply, ModelReply, RawReply, Reply, StaticReply } from "./reply.ts"
import { messageOf } from "../../../src/text/error-text.ts"

export type { ConnectionClosed, RecordedRequest } from "./recorded-request.ts"
export type { ErrorReply, ModelReply, RawReply, Reply, ScriptedToolCall, ScriptedUsage, StaticReply } from "./reply.ts"

export interface FakeLlm {
  /** Base URL without a path, e.g. "http://127.0.0.1:41234"; append "/v1" for OpenAI clients. */
  readonly url: string
  /** Every request received, model request or not, in order of arrival. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /**
   * When each TCP connection was accepted (epoch ms, as RecordedRequest.receivedAt), in order.
   * Under Node's http; Bun's node:http reports a connection only with its first request.
   */
  readonly connections: ReadonlyArray<number>
  /** Appends replies; each model request consumes the next one. */
  readonly script: (replies: ReadonlyArray<Reply>) => void
  readonly remainingReplies: () => number
  /** A fixed JSON answer for a non-model endpoint (e.g. Ollama's GET /api/tags); consumes no reply. */
  readonly serve: (method: string, pathname: string, body: unknown) => void
  /** Resolves with the nth request (1-based) once it has arrived. */
  readonly waitForRequest: (n: number, options?: { readonly timeoutMs?: number }) => Promise<RecordedRequest>
  readonly close: () => Promise<void>
}

export const noReplyLeftMessage = "fake-llm: no scripted reply left"

interface Waiter {
  readonly n: number
  readonly resolve: (request: RecordedRequest) => void
  readonly reject: (error: Error) => void
}

/** Resolves true after `ms`, or false as soon as the signal aborts. */
const sleep = (ms: number | undefined, signal: AbortSignal): Promise<boolean> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve(false)
    if (ms === undefined || ms <= 0) return resolve(true)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort)
      resolve(true)
    }, ms)
    signal.addEventListener("abort", onAbort, { once: true })
  })

/** Resolves once the data has been handed to the socket, so a later destroy cannot drop it. */
const write = (res: ServerResponse, data: string): Promise<void> =>
  new Promise((resolve) => {
    res.write(data, () => resolve())
  })

const readBody = async (req: IncomingMessage): Promise<string> => {
  req.setEncoding("utf8")
  let body = ""
  for await (const chunk of req) body += String(chunk)
  return body
}

const parseJson = (text: string): unknown => {
  if (text.trim() === "") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const flatHeaders = (req: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return headers
}

/** Writes frames `chunkDelayMs` apart; destroys the socket instead of frame number `cutAfter`. */
const writeFrames = async (
  res: ServerResponse,
  frames: ReadonlyArray<string>,
  options: { readonly chunkDelayMs?: number | undefined; readonly cutAfterChunks?: number | undefined },
  signal: AbortSignal
): Promise<void> => {
  for (const [position, frame] of frames.entries()) {
    if (options.cutAfterChunks !== undefined && position >= options.cutAfterChunks) {
      res.destroy()
      return
    }
    if (position > 0 && !(await sleep(options.chunkDelayMs, signal))) return
    if (signal.aborted) return
    await write(res, frame)
  }
  res.end()
}

const answerError = async (
  reply: ErrorReply,
  protocol: WireProtocol,
  request: RecordedRequest,
  res: ServerResponse,
  signal: AbortSignal
): Promise<void> => {
  if (!(await sleep(reply.delayMs, signal))) return
  const body =
    reply.body === undefined
      ? JSON.stringify(protocol.errorBody(reply, request))
      : typeof reply.body === "string"
        ? reply.body
        : JSON.stringify(reply.body)
  const contentType = parseJson(body) === undefined ? "text/plain; charset=utf-8" : "application/json"
  res.writeHead(reply.status, { "content-type": contentType, "x-request-id": requestId(request), ...reply.headers })
  res.end(body)
}

const answerRaw = async (reply: RawReply, res: ServerResponse, signal: AbortSignal): Promise<void> => {
  if (!(await sleep(reply.delayMs, signal))) return
  res.writeHead(reply.status ?? 200, { ...reply.headers })
  res.flushHeaders()
  await writeFrames(res, reply.chunks, reply, signal)
}

const answerModel = async (
  reply: ModelReply,
  protocol: WireProtocol,
  request: RecordedRequest,
  res: ServerResponse,
  signal: AbortSignal
): Promise<void> => {
  if (!(await sleep(reply.delayMs, signal))) return
  if (!protocol.wantsStream(request)) {
    const body = JSON.stringify(protocol.complete(reply, request))
    res.writeHead(200, { "content-type": "application/json", "x-request-id": requestId(request) })
    if (reply.cutAfterChunks !== undefined) {
      res.flushHeaders()
      res.destroy()
      return
    }
    res.end(body)
    return
  }
  const { contentType, frames } = protocol.stream(reply, request)
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache", "x-request-id": requestId(request) })
  res.flushHeaders()
  await writeFrames(res, frames, reply, signal)
}

const requestId = (request: RecordedRequest): string => `req_fake${request.index}`

export const startFakeLlm = async (): Promise<FakeLlm> => {
  const requests: Array<RecordedRequest> = []
  const connections: Array<number> = []
  const replies: Array<Reply> = []
  const staticRoutes = new Map<string, unknown>()
  const waiters: Array<Waiter> = []
  const sockets = new Set<Socket>()
  const inFlight = new Set<AbortController>()

  const settleWaiters = () => {
    for (const waiter of [...waiters]) {
      const request = requests[waiter.n - 1]
      if (request === undefined) continue
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(request)
    }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const receivedAt = preciseNow()
    const abort = new AbortController()
    inFlight.add(abort)
    const closed = new Promise<ConnectionClosed>((resolve) => {
      res.once("close", () => {
        inFlight.delete(abort)
        abort.abort()
        resolve({ at: preciseNow(), beforeReplyFinished: !res.writableFinished })
      })
    })
    const method = req.method ?? "GET"
    const path = req.url ?? "/"
    const pathname = new URL(path, "http://fake-llm").pathname
    const protocol = protocols.find((candidate) => candidate.handles(method, pathname))
    const rawBody = await readBody(req)
    const request: RecordedRequest = {
      index: requests.length + 1,
      method,
      path,
      headers: flatHeaders(req),
      body: parseJson(rawBody),
      rawBody,
      receivedAt,
      protocol: protocol?.name,
      closed
    }
    requests.push(request)
    settleWaiters()

    const fixed = staticRoutes.get(`${method} ${pathname}`)
    if (fixed !== undefined) {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(fixed))
      return
    }
    if (protocol === undefined) {
      res.writeHead(404, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: `fake-llm: no route for ${method} ${path}` } }))
      return
    }
    const next = replies.shift()
    const reply: StaticReply =
      next === undefined
        ? { kind: "error", status: 500, message: noReplyLeftMessage }
        : typeof next === "function"
          ? await next(request)
          : next
    switch (reply.kind) {
      case "error":
        return answerError(reply, protocol, request, res, abort.signal)
      case "raw":
        return answerRaw(reply, res, abort.signal)
      case undefined:
      case "model":
        return answerModel(reply, protocol, request, res, abort.signal)
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy()
        return
      }
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" })
      res.end(`fake-llm: ${messageOf(error)}`)
    })
  })
  server.on("connection", (socket: Socket) => {
    connections.push(preciseNow())
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo // listen() on a TCP port always yields an AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections,
    script: (more) => {
      replies.push(...more)
    },
    remainingReplies: () => replies.length,
    serve: (method, pathname, body) => {
      staticRoutes.set(`${method} ${pathname}`, body)
    },
    waitForRequest: (n, options) =>
      new Promise<RecordedRequest>((resolve, reject) => {
        const arrived = requests[n - 1]
        if (arrived !== undefined) return resolve(arrived)
        const timer =
          options?.timeoutMs === undefined
            ? undefined
            : setTimeout(() => {
                waiters.splice(waiters.indexOf(waiter), 1)
                reject(new Error(`fake-llm: request ${n} did not arrive within ${options.timeoutMs} ms`))
              }, options.timeoutMs)
        const waiter: Waiter = {
          n,
          resolve: (request) => {
            clearTimeout(timer)
            resolve(request)
          },
          reject: (error) => {
            clearTimeout(timer)
            reject(error)
          }
        }
        waiters.push(waiter)
      }),
    close: async () => {
      for (const waiter of waiters.splice(0)) waiter.reject(new Error("fake-llm: closed"))
      for (const abort of inFlight) abort.abort()
      const closing = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      await closing
    }
  }
}
