/**
 * An editor for `crystal acp`: the compiled binary as a child process, driven through the ACP
 * SDK's own client side over its stdio. Records every session/update and permission request, and
 * every line the agent wrote on stdout (which must all be JSON-RPC messages).
 */
import { spawn } from "node:child_process"
import { PassThrough, Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk"
import { crystalBinary, type Sandbox } from "./crystal.ts"

export interface AcpClientOptions {
  /** The answer to session/request_permission; `signal` aborts when the agent cancels the request. */
  readonly permission?: (request: acp.RequestPermissionRequest, signal: AbortSignal) => Promise<acp.RequestPermissionResponse>
  /** fs/read_text_file and fs/write_text_file: offered (and advertised) when given. */
  readonly fs?: {
    readonly read: (request: acp.ReadTextFileRequest) => Promise<acp.ReadTextFileResponse>
    readonly write: (request: acp.WriteTextFileRequest) => Promise<void>
  }
  readonly cwd?: string
}

export interface AcpClient {
  readonly agent: acp.ClientContext
  readonly updates: Array<acp.SessionNotification>
  readonly permissions: Array<acp.RequestPermissionRequest>
  readonly stdoutLines: () => ReadonlyArray<string>
  readonly stderr: () => string
  readonly initialize: () => Promise<acp.InitializeResponse>
  /** Closes stdin (as an editor does) and waits for the agent to exit. */
  readonly close: () => Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  readonly pid: number
}

export const allowOnce = async (): Promise<acp.RequestPermissionResponse> => ({ outcome: { outcome: "selected", optionId: "allow-once" } })
export const reject = async (): Promise<acp.RequestPermissionResponse> => ({ outcome: { outcome: "selected", optionId: "reject" } })

export const startAcp = (sandbox: Sandbox, options: AcpClientOptions = {}): AcpClient => {
  const child = spawn(crystalBinary, ["acp"], { cwd: options.cwd ?? sandbox.workspace, env: sandbox.env, stdio: ["pipe", "pipe", "pipe"] })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  let raw = ""
  const tee = new PassThrough()
  child.stdout.on("data", (chunk: Buffer) => {
    raw += chunk.toString("utf8")
    tee.write(chunk)
  })
  child.stdout.on("end", () => tee.end())
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })))
  const updates: Array<acp.SessionNotification> = []
  const permissions: Array<acp.RequestPermissionRequest> = []
  let app = acp
    .client({ name: "crystal-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params)
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
      permissions.push(params)
      return (options.permission ?? reject)(params, signal)
    })
  const files = options.fs
  if (files !== undefined) {
    app = app
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => files.read(params))
      .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
        await files.write(params)
        return {}
      })
  }
  const connection = app.connect(
    acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(tee) as unknown as ReadableStream<Uint8Array>)
  )
  return {
    agent: connection.agent,
    updates,
    permissions,
    pid: child.pid ?? 0,
    stdoutLines: () => raw.split("\n").filter((line) => line !== ""),
    stderr: () => stderr,
    initialize: () =>
      connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: files !== undefined, writeTextFile: files !== undefined }, terminal: false }
      }),
    close: async () => {
      child.stdin.end()
      const result = await exited
      connection.close()
      return result
    }
  }
}

/** The updates of one session, by kind. */
export const updatesOf = <K extends acp.SessionUpdate["sessionUpdate"]>(client: AcpClient, sessionId: string, kind: K): Array<Extract<acp.SessionUpdate, { sessionUpdate: K }>> =>
  client.updates
    .filter((notification) => notification.sessionId === sessionId)
    .map((notification) => notification.update)
    .filter((update): update is Extract<acp.SessionUpdate, { sessionUpdate: K }> => update.sessionUpdate === kind)

export const messageText = (client: AcpClient, sessionId: string, kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk"): string =>
  updatesOf(client, sessionId, kind)
    .map((update) => (update.content.type === "text" ? update.content.text : ""))
    .join("")
