/**
 * The connection to the model's provider opens as the binary starts (src/cli/early-connect.ts),
 * before any session exists, and the session's first request goes over it: one connection per run.
 * A provider on its scheme's default port (every hosted API), which Bun cannot preconnect to, gets
 * its name looked up ahead instead, and the run goes on as before.
 */
import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"

const fakeServer = useFakeServers()

describe("the provider connection opens with the binary", () => {
  it("is open before the session exists, and the run's request uses it: one connection, one request", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "Done." }])
    // No prompt argument: crystal run reads it from stdin before it prepares any session, so while
    // stdin stays open only the early start can have connected.
    const child = spawn(crystalBinary, ["run", "--format", "json"], { cwd: sandbox.workspace, env: sandbox.env, stdio: ["pipe", "pipe", "pipe"] })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.stdout.resume()
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
    await expect.poll(() => fake.connections.length, { timeout: 10_000 }).toBe(1)
    expect(fake.requests).toHaveLength(0)
    child.stdin.end("go")
    expect(await exited).toBe(0)
    expect(stderr).toBe("")
    expect(fake.requests).toHaveLength(1)
    expect(fake.connections).toHaveLength(1)
  })

  it("a provider on the default port (nothing listens on 127.0.0.1:80 here) fails as an unreachable server, not in the early start", async () => {
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, "http://localhost")
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(result.stderr).not.toContain("internal error")
    expect(result.stderr).toContain("could not reach local at http://localhost/v1")
    expect(result.code).toBe(1)
  })
})
