/**
 * The MCP stdio transport over a contained server process (server-process.ts): the SDK's framing
 * (one JSON-RPC message per line, its ReadBuffer), our process handling. `start` takes over a
 * process the session spawned before the SDK was loaded, or spawns one (a restart).
 */
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import { prepareContainment } from "../bash/containment.ts"
import { startServerProcess, type ServerProcess, type StdioServerCommand } from "./server-process.ts"

export class ContainedStdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  private process: ServerProcess | undefined
  private readonly buffer = new ReadBuffer()
  private readonly server: StdioServerCommand
  private readonly graceMs: number
  private readonly spawned: Promise<ServerProcess> | undefined

  /** `spawned`: the server's process when it was started ahead of the SDK; otherwise `start` spawns it. */
  constructor(server: StdioServerCommand, graceMs: number, spawned?: Promise<ServerProcess>) {
    this.server = server
    this.graceMs = graceMs
    this.spawned = spawned
  }

  /** What the server last wrote to stderr, trimmed. */
  get stderr(): string {
    return this.process?.stderr() ?? ""
  }

  async start(): Promise<void> {
    if (this.process !== undefined) throw new Error("already started")
    // No home: a session wrote the pid file before its first server started (layers/session-mcp.ts).
    const process = await (this.spawned ?? Effect.runPromise(prepareContainment(undefined)).then(() => startServerProcess(this.server)))
    this.process = process
    process.listen({
      stdout: (chunk) => this.read(chunk),
      exit: () => this.onclose?.(),
      error: (error) => this.onerror?.(error)
    })
    await process.started
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk)
    } catch (error) {
      // A message past the SDK's 10 MiB line limit: the stream cannot be resynchronised.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
      void this.close()
      return
    }
    for (;;) {
      let message: JSONRPCMessage | null
      try {
        message = this.buffer.readMessage()
      } catch (error) {
        // A line that is not JSON-RPC (a server logging to stdout): reported, the rest goes on.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)))
        continue
      }
      if (message === null) break
      this.onmessage?.(message)
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.process?.child.stdin
    if (stdin === undefined || stdin === null || stdin.destroyed || this.process?.exited() === true) return Promise.reject(new Error("the server is not running"))
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once("drain", resolve)
    })
  }

  /** Ends the server and everything it started; safe to call more than once. */
  async close(): Promise<void> {
    const process = this.process ?? (await this.spawned?.catch(() => undefined))
    await process?.kill(this.graceMs)
    this.buffer.clear()
  }
}
