/**
 * One connection to one server over the official SDK's Client: stdio through the contained
 * transport (stdio-transport.ts), HTTP as streamable HTTP first and, when the server answers that
 * with an HTTP 4xx (a server that only speaks the 2024-11-05 transport), the old HTTP+SSE
 * transport, as the SDK's documentation recommends. The client says what Crystal supports:
 * roots (the workspace and the granted directories), when the session has someone to ask
 * (interactive or not: headless declines with a note) form-mode elicitation, and sampling for a
 * server whose entry says `"sampling": true` (sampling.ts). Without it the capability is not
 * declared, so a well-behaved server does not ask; one that asks anyway gets a JSON-RPC error
 * saying that sampling is off for it in Crystal and how the operator turns it on (the SDK alone
 * would answer "Method not found", which tells nobody what to do).
 */
import { pathToFileURL } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type Tool as McpTool
} from "@modelcontextprotocol/sdk/types.js"
import { DEFAULT_GRACE_MS } from "../bash/limits.ts"
import type { ElicitAnswer } from "./elicitation.ts"
import { rpcCodes, rpcError } from "./sampling.ts"
import type { McpEndpoint } from "./server-config.ts"
import { lazyOutputValidators } from "./sdk-warmup.ts"
import type { ServerProcess } from "./server-process.ts"
import { ContainedStdioTransport } from "./stdio-transport.ts"
import { messageOf } from "../text/error-text.ts"

/**
 * How Crystal introduces itself in initialize. A copy of package.json's version: importing that
 * file here would split it out of main.ts's chunk, a load more for every `crystal --version`
 * (test/unit/mcp/names.test.ts keeps the two equal).
 */
export const clientInfo = { name: "crystal", version: "0.1.0" } as const

export interface ConnectOptions {
  /** How long initialize may take before the attempt fails. */
  readonly timeoutMs: number
  /** The directories the server may treat as roots: the workspace and the granted ones. */
  readonly roots: () => ReadonlyArray<string>
  /** The server said its tool list changed (list_changed): the next turn lists them again. */
  readonly onToolsChanged: () => void
  /** The connection ended without us closing it (the server exited, the stream broke). */
  readonly onClosed: (reason: string) => void
  /** Aborted when the session closes (or the server restarts) while this attempt is still starting. */
  readonly signal: AbortSignal
  /** Answers the server's form-mode elicitation/create; absent: the capability is not declared. */
  readonly elicit?: ((message: string, schema: Readonly<Record<string, unknown>>) => Promise<ElicitAnswer>) | undefined
  /** Answers the server's sampling/createMessage; absent: the capability is not declared. */
  readonly sample?: ((params: CreateMessageRequestParams, signal: AbortSignal) => Promise<CreateMessageResult>) | undefined
  /** Without `sample`: what a server that asks for sampling anyway is told (and the operator, once). */
  readonly samplingOff?: (() => string) | undefined
  /** A stdio server's process, spawned before the SDK loaded (layers/session-mcp.ts). */
  readonly spawned?: Promise<ServerProcess> | undefined
}

export interface Connection {
  readonly client: Client
  /** "stdio", "streamable HTTP" or "HTTP+SSE". */
  readonly transport: string
  readonly close: () => Promise<void>
  readonly listTools: () => Promise<ReadonlyArray<McpTool>>
  readonly serverInfo: string | undefined
}


const makeClient = (options: ConnectOptions): Client => {
  const { elicit, sample, samplingOff } = options
  const client = new Client(
    { ...clientInfo },
    {
      jsonSchemaValidator: lazyOutputValidators(),
      capabilities: { roots: { listChanged: false }, ...(elicit === undefined ? {} : { elicitation: { form: {} } }), ...(sample === undefined ? {} : { sampling: {} }) }
    }
  )
  if (sample !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => sample(request.params, extra.signal))
  } else {
    // Requests nothing handles; the SDK's answer to any but sampling stays as it was.
    client.fallbackRequestHandler = (request) =>
      Promise.reject(rpcError(rpcCodes.methodNotFound, request.method === "sampling/createMessage" && samplingOff !== undefined ? samplingOff() : "Method not found"))
  }
  if (elicit !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params
      return params.mode === "url" ? { action: "decline" as const } : elicit(params.message, params.requestedSchema as Readonly<Record<string, unknown>>)
    })
  }
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: options.roots().map((dir) => ({ uri: pathToFileURL(dir).href, name: dir }))
  }))
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged())
  return client
}

const listAll = async (client: Client): Promise<ReadonlyArray<McpTool>> => {
  // A client uses only what the server declared in initialize: one without `tools` (a server of
  // prompts or resources) has none, and answers tools/list with "Method not found".
  if (client.getServerCapabilities()?.tools === undefined) return []
  const tools: Array<McpTool> = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor })
    tools.push(...page.tools)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return tools
}

/** Connects `client` over `transport`; on failure the transport is closed (a stdio server's tree killed). */
const attempt = async (client: Client, transport: Transport, options: ConnectOptions): Promise<void> => {
  // A server still starting when the session closes is killed then, not after initialize times out.
  const abandon = () => void transport.close().catch(() => {})
  options.signal.addEventListener("abort", abandon, { once: true })
  try {
    if (options.signal.aborted) throw new Error("the session closed while the server was starting")
    await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal })
  } catch (error) {
    await transport.close().catch(() => {})
    throw error
  } finally {
    options.signal.removeEventListener("abort", abandon)
  }
}

/** Why a failed stdio start failed: the SDK's message, and the last of what the server wrote to stderr. */
const stdioFailure = (error: unknown, transport: ContainedStdioTransport, command: string): Error => {
  const code = (error as NodeJS.ErrnoException).code
  const reason = code === "ENOENT" ? `${command}: command not found` : messageOf(error)
  const stderr = transport.stderr.split("\n").slice(-3).join(" / ")
  return new Error(stderr === "" ? reason : `${reason} (stderr: ${stderr.slice(0, 400)})`)
}

export const connectServer = async (endpoint: McpEndpoint, options: ConnectOptions): Promise<Connection> => {
  let closing = false
  const watch = (client: Client, describe: () => string) => {
    client.onclose = () => {
      if (!closing) options.onClosed(describe())
    }
  }
  const finish = (client: Client, transport: Transport, kind: string): Connection => {
    const info = client.getServerVersion()
    return {
      client,
      transport: kind,
      serverInfo: info === undefined ? undefined : `${info.name} ${info.version}`,
      listTools: () => listAll(client),
      close: async () => {
        closing = true
        await client.close().catch(() => {})
        await transport.close().catch(() => {})
      }
    }
  }

  if (endpoint.kind === "stdio") {
    const transport = new ContainedStdioTransport(endpoint, DEFAULT_GRACE_MS, options.spawned)
    const client = makeClient(options)
    try {
      await attempt(client, transport, options)
    } catch (error) {
      throw stdioFailure(error, transport, endpoint.command)
    }
    watch(client, () => {
      const stderr = transport.stderr.split("\n").slice(-3).join(" / ")
      return stderr === "" ? "the server process exited" : `the server process exited (stderr: ${stderr.slice(0, 400)})`
    })
    return finish(client, transport, "stdio")
  }

  const url = new URL(endpoint.url)
  const requestInit = { headers: { ...endpoint.headers } }
  const streamable = new StreamableHTTPClientTransport(url, { requestInit })
  const client = makeClient(options)
  try {
    await attempt(client, streamable, options)
    watch(client, () => "the connection closed")
    return finish(client, streamable, "streamable HTTP")
  } catch (error) {
    // A 4xx to the streamable POST is how a server of the old transport answers (404 or 405).
    const status = error instanceof StreamableHTTPError ? error.code : undefined
    if (status === undefined || status < 400 || status >= 500) throw new Error(`${url.origin}${url.pathname}: ${messageOf(error)}`)
  }
  const sse = new SSEClientTransport(url, { requestInit })
  const legacy = makeClient(options)
  try {
    await attempt(legacy, sse, options)
  } catch (error) {
    throw new Error(`${url.origin}${url.pathname}: neither streamable HTTP nor HTTP+SSE answered (${messageOf(error)})`)
  }
  watch(legacy, () => "the connection closed")
  return finish(legacy, sse, "HTTP+SSE")
}
