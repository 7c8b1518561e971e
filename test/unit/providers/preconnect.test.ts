/**
 * Warming the way to the provider under Bun (src/providers/preconnect.ts): a base URL on its own
 * port gets its TCP connection ahead of the first request; one on the scheme's default port (every
 * hosted API), which Bun 1.4's fetch.preconnect refuses, gets its DNS lookup ahead instead, and
 * start-up goes on (the refusal threw out of the early start before). Through a proxy the name is
 * the proxy's to resolve.
 */
import { spawn } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..", "..", "..")
const bun = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun")
const script = path.join(root, "test", "support", "bun-preconnect.ts")

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

interface Warmed {
  readonly dns: { readonly totalCount: number }
  readonly exited: Promise<number | null>
}

/** Runs the script on `urls`; it stays until the test ends. */
const warm = async (urls: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Warmed> => {
  const withoutProxies = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(https?|all|no)_proxy$/i.test(name)))
  const child = spawn(bun, [script, ...urls], { stdio: ["pipe", "pipe", "inherit"], env: { ...withoutProxies, ...env } })
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  cleanups.push(() => child.stdin.end())
  let stdout = ""
  child.stdout.setEncoding("utf8")
  for await (const chunk of child.stdout) {
    stdout += String(chunk)
    if (stdout.includes("\n")) break
  }
  if (!stdout.includes("\n")) throw new Error(`the preconnect script printed nothing (exit ${await exited})`)
  return { dns: JSON.parse(stdout) as Warmed["dns"], exited }
}

const listen = async (): Promise<{ readonly port: number; readonly accepted: () => number }> => {
  let accepted = 0
  const server = net.createServer((socket) => {
    accepted++
    socket.on("error", () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  cleanups.push(() => server.close())
  return { port: (server.address() as net.AddressInfo).port, accepted: () => accepted }
}

describe("warming the way to the provider", () => {
  it("connects to a base URL on its own port before any request", async () => {
    const server = await listen()
    await warm([`http://127.0.0.1:${server.port}/v1`])
    await expect.poll(server.accepted, { timeout: 10_000 }).toBe(1)
  })

  it("looks up the name of one on the default port, which Bun cannot preconnect, and goes on", async () => {
    const warmed = await warm(["https://localhost/v1"])
    expect(warmed.dns.totalCount).toBe(1)
  })

  it("leaves the name to the proxy when requests go through one", async () => {
    const warmed = await warm(["https://localhost/v1"], { HTTPS_PROXY: "http://127.0.0.1:9" })
    expect(warmed.dns.totalCount).toBe(0)
  })
})
