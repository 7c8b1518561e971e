/**
 * config.json's stdio MCP servers are spawned as the binary starts (src/mcp/early-servers.ts) and
 * the session takes them over: one server process per run, none for commands that start no
 * session, and none left behind when the run fails after spawning.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { probeServer } from "../support/mcp/servers.ts"
import { processesWith } from "../support/processes.ts"

const fakeServer = useFakeServers()

/** A home whose config.json names the probe server, which appends its pid to the returned file as it starts. */
const probeHome = async (sandbox: Sandbox, baseURL: string, extra: Record<string, unknown> = {}): Promise<string> => {
  const starts = path.join(sandbox.home, "starts.log")
  await writeLocalConfig(sandbox, baseURL, { mcpServers: { probe: { command: process.execPath, args: [probeServer], env: { MCP_PROBE_STARTS: starts }, ...extra } } })
  return starts
}

const startedPids = async (file: string): Promise<Array<number>> =>
  (await fs.readFile(file, "utf8").catch(() => "")).split("\n").filter((line) => line !== "").map(Number)

describe("config.json's MCP servers start with the binary", () => {
  it("a run takes over the server spawned as it started: one process, its tools offered and called, gone after the run", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const starts = await probeHome(sandbox, fake.url)
    fake.script([{ toolCalls: [{ name: "mcp__probe__progress", arguments: { steps: 1 } }] }, { text: "Done." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "go"])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(jsonLines(result.stdout).find((event) => event["type"] === "tool_result")).toMatchObject({ name: "mcp__probe__progress", ok: true, output: "done after 1 steps" })
    const pids = await startedPids(starts)
    expect(pids).toHaveLength(1)
    expect(await processesWith(probeServer)).toEqual([])
  })

  it("commands that start no session spawn no server", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const starts = await probeHome(sandbox, fake.url)
    for (const args of [["mcp", "list"], ["--help"], ["run", "--no-such-flag", "hi"], ["sessions", "list"], ["run", "--continue", "hi"]]) {
      await runCrystal(sandbox, args)
    }
    expect(await startedPids(starts)).toEqual([])
  })

  it("a run that fails after its servers were spawned (a bad config.json value) leaves none running", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const starts = await probeHome(sandbox, fake.url, { startupTimeoutSeconds: "ten" })
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("startupTimeoutSeconds")
    // Spawned or not (it may not have reached its first line before the kill), nothing of it is left.
    expect(await processesWith(probeServer)).toEqual([])
    expect((await startedPids(starts)).length).toBeLessThanOrEqual(1)
  })
})
