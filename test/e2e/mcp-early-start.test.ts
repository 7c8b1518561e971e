/**
 * config.json's stdio MCP servers are spawned as the binary starts (src/mcp/early-servers.ts) and
 * the session takes them over: the server runs before any session exists, one server process per
 * run serves its calls, none starts for commands that start no session, and none is left behind
 * when the run fails after spawning.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { crystalBinary, jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { probeServer, testMarker } from "../support/mcp/servers.ts"
import { processesWith } from "../support/processes.ts"

const fakeServer = useFakeServers()

interface Probe {
  /** Where the probe's shell appends its pid as the process starts, before anything is loaded. */
  readonly starts: string
  /** In the probe's argv: what the process checks look for. */
  readonly marker: string
}

/**
 * A home whose config.json names the probe server, started through a shell that notes the start
 * at once: a process killed in its first milliseconds (before Node loaded anything) still counts.
 */
const probeHome = async (sandbox: Sandbox, baseURL: string, extra: Record<string, unknown> = {}): Promise<Probe> => {
  const starts = path.join(sandbox.home, "starts.log")
  const marker = testMarker()
  const command = 'echo $$ >> "$MCP_PROBE_STARTS"; exec "$0" "$@"'
  await writeLocalConfig(sandbox, baseURL, {
    mcpServers: { probe: { command: "sh", args: ["-c", command, process.execPath, probeServer, marker], env: { MCP_PROBE_STARTS: starts }, ...extra } }
  })
  return { starts, marker }
}

const startedPids = async (file: string): Promise<Array<number>> =>
  (await fs.readFile(file, "utf8").catch(() => "")).split("\n").filter((line) => line !== "").map(Number)

describe("config.json's MCP servers start with the binary", () => {
  it("the server runs before the session exists, and the run takes it over: one process, the first Crystal spawned, serving the calls; gone after the run", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const probe = await probeHome(sandbox, fake.url)
    fake.script([{ toolCalls: [{ name: "mcp__probe__contain", arguments: {} }] }, { text: "Done." }])
    // No prompt argument: crystal run reads it from stdin before it prepares any session, so while
    // stdin stays open only the early start can have spawned the server.
    const child = spawn(crystalBinary, ["run", "--format", "json", "--approval", "full"], { cwd: sandbox.workspace, env: sandbox.env, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
    await expect.poll(() => processesWith(probe.marker), { timeout: 10_000 }).toHaveLength(1)
    expect(fake.requests).toHaveLength(0)
    child.stdin.end("go")
    expect(await exited).toBe(0)
    expect(stderr).toBe("")
    const output = String(jsonLines(stdout).find((event) => event["type"] === "tool_result")?.["output"])
    // Crystal's tags count its spawns: ".1" is the early one; a server spawned again would be ".2".
    expect(output).toMatch(/^\d+\.\d+\.1$/)
    expect(await startedPids(probe.starts)).toHaveLength(1)
    expect(await processesWith(probe.marker)).toEqual([])
  })

  it("commands that start no session spawn no server", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const probe = await probeHome(sandbox, fake.url)
    for (const args of [["mcp", "list"], ["--help"], ["run", "--no-such-flag", "hi"], ["sessions", "list"], ["run", "--continue", "hi"]]) {
      await runCrystal(sandbox, args)
    }
    expect(await startedPids(probe.starts)).toEqual([])
  })

  it("a run that fails after its servers were spawned (a bad config.json value) leaves none running", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const probe = await probeHome(sandbox, fake.url, { startupTimeoutSeconds: "ten" })
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("startupTimeoutSeconds")
    // Spawned as Crystal started (its shell may not have got as far as noting it before the kill).
    expect((await startedPids(probe.starts)).length).toBeLessThanOrEqual(1)
    await expect.poll(() => processesWith(probe.marker), { timeout: 5000 }).toEqual([])
  })
})
