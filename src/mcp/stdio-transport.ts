/**
 * The MCP stdio transport, contained like a shell (src/bash/spawn.ts): the SDK's own
 * StdioClientTransport spawns the server as a plain child and on close signals only that child,
 * so whatever the server started (an `npx` wrapper's node, a server's helpers) would outlive the
 * session. Here the server is the leader of its own session and process group, carries a
 * CRYSTAL_CONTAIN tag and is tracked for the exit hook; closing kills the whole tree (SIGTERM,
 * grace, SIGKILL) with process-tree.ts. The framing (one JSON-RPC message per line) is the SDK's.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as Effect from "effect/Effect"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { prepareContainment, taggedEnvironment } from "../bash/containment.ts"
import { killProcessTree, trackLeader } from "../bash/process-tree.ts"

export interface StdioServerProcess {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string
  /** How long the tree gets after SIGTERM before SIGKILL. */
  readonly graceMs: number
}

/** The last lines a server wrote to stderr, kept for the note when it fails. */
const STDERR_KEEP_BYTES = 4096

export class ContainedStdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  private child: ChildProcess | undefined
  private readonly buffer = new ReadBuffer()
  private stderrTail = ""
  private closing: Promise<void> | undefined

  private readonly server: StdioServerProcess

  constructor(server: StdioServerProcess) {
    this.server = server
  }

  /** The server's pid (its process group and session id) once started. */
  get pid(): number | undefined {
    return this.child?.pid
  }

  /** What the server last wrote to stderr, trimmed. */
  get stderr(): string {
    return this.stderrTail.trim()
  }

  async start(): Promise<void> {
    if (this.child !== undefined) throw new Error("already started")
    await Effect.runPromise(prepareContainment)
    const { env, tag } = taggedEnvironment({ ...this.server.env })
    await new Promise<void>((resolve, reject) => {
      const child = spawn(this.server.command, [...this.server.args], {
        cwd: this.server.cwd,
        env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true
      })
      this.child = child
      child.once("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.once("spawn", () => {
        if (child.pid !== undefined) trackLeader(child.pid, tag)
        resolve()
      })
      child.once("close", () => {
        this.child = undefined
        this.onclose?.()
      })
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("data", (chunk: Buffer) => {
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
      })
      child.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_KEEP_BYTES)
      })
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (stdin === undefined || stdin === null || stdin.destroyed) return Promise.reject(new Error("the server is not running"))
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once("drain", resolve)
    })
  }

  /** Ends the server and everything it started; safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const child = this.child
      const pid = child?.pid
      if (child === undefined || pid === undefined) return
      child.stdin?.end()
      await Effect.runPromise(killProcessTree(pid, { graceMs: this.server.graceMs }))
      this.buffer.clear()
    })()
    return this.closing
  }
}
