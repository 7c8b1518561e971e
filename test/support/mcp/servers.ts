/** The MCP servers the tests run: the reference ones from npm and the probe scripts of this folder. */
import { spawn, type ChildProcess } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as net from "node:net"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..", "..", "..")

export const everythingServer = path.join(root, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
export const filesystemServer = path.join(root, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
export const probeServer = path.join(root, "test", "support", "mcp", "probe-server.mjs")
export const silentServer = path.join(root, "test", "support", "mcp", "silent-server.mjs")
export const promptsOnlyServer = path.join(root, "test", "support", "mcp", "prompts-only-server.mjs")
export const structuredServer = path.join(root, "test", "support", "mcp", "structured-server.mjs")

/**
 * An argument of its own for one test's server (every server here ignores it): what a machine-wide
 * process check looks for, so that a server of another test file, in the other worker, is never
 * counted.
 */
export const testMarker = (): string => `--crystal-test-${randomUUID()}`

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/**
 * server-everything over HTTP (`streamableHttp` or the old `sse`) on a free port; resolves once it
 * listens. The caller kills it.
 */
export const startEverythingHttp = async (transport: "streamableHttp" | "sse"): Promise<{ readonly url: string; readonly child: ChildProcess }> => {
  const port = await freePort()
  const child = spawn(process.execPath, [everythingServer, transport], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] })
  await new Promise<void>((resolve, reject) => {
    let seen = ""
    const onData = (chunk: Buffer) => {
      seen += chunk.toString()
      if (/listening on port|running on port/i.test(seen)) resolve()
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.once("exit", (code) => reject(new Error(`server-everything ${transport} exited (${code}): ${seen}`)))
  })
  return { url: `http://127.0.0.1:${port}/${transport === "sse" ? "sse" : "mcp"}`, child }
}
