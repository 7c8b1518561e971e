/** config.json's stdio servers planned and spawned before the session exists (src/mcp/early-servers.ts). */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { isProcessAlive } from "../../../src/bash/process-tree.ts"
import { shellEnvironment } from "../../../src/bash/shell-env.ts"
import { commandKey, earlyServerCommands, startEarlyServers, takeEarlyServers } from "../../../src/mcp/early-servers.ts"
import { planServer } from "../../../src/mcp/server-config.ts"
import { tempDir } from "../../support/temp.ts"

const homeWith = async (config: unknown): Promise<{ env: Record<string, string>; workspace: string }> => {
  const home = await tempDir("crystal-early-home-")
  const workspace = await fs.realpath(await tempDir("crystal-early-ws-"))
  await fs.writeFile(path.join(home, "config.json"), typeof config === "string" ? config : JSON.stringify(config))
  return { env: { PATH: process.env["PATH"] ?? "", CRYSTAL_HOME: home, SECRET_API_KEY: "sk-not-for-servers", TOKEN: "t0ken-value" }, workspace }
}

const sleeper = { command: "sleep", args: ["30"], env: { TOKEN: "${env:TOKEN}" }, cwd: "sub" }

describe("early MCP servers", () => {
  it("plans exactly what the session plans: the shell's environment (no provider keys), ${env:…} expanded, cwd against the workspace", async () => {
    const config = { mcpServers: { a: sleeper, web: { url: "http://127.0.0.1:1/mcp" }, off: { ...sleeper, enabled: false } } }
    const { env, workspace } = await homeWith(config)
    const commands = earlyServerCommands(env, workspace)
    const session = planServer("a", sleeper, { workspace, env, baseEnv: shellEnvironment({}, env) }).endpoint
    if (typeof session === "string" || session.kind !== "stdio") throw new Error(`not a stdio plan: ${JSON.stringify(session)}`)
    expect(commands).toHaveLength(1)
    expect(commandKey(commands[0]!)).toBe(commandKey(session))
    expect(commands[0]).toMatchObject({ command: "sleep", args: ["30"], cwd: path.join(workspace, "sub") })
    expect(commands[0]!.env["TOKEN"]).toBe("t0ken-value")
    expect(commands[0]!.env["SECRET_API_KEY"]).toBeUndefined()
  })

  it("plans nothing from a config.json it cannot read or whose entry has another shape", async () => {
    const broken = await homeWith('{ "mcpServers": ')
    expect(earlyServerCommands(broken.env, broken.workspace)).toEqual([])
    const shapeless = await homeWith({ mcpServers: { a: { command: "sleep", args: "30" } } })
    expect(earlyServerCommands(shapeless.env, shapeless.workspace)).toEqual([])
  })

  it("hands a process over once for its exact command and kills the ones nobody took", async () => {
    const { env, workspace } = await homeWith({ mcpServers: { a: { command: "sleep", args: ["30"] }, b: { command: "sleep", args: ["31"] } } })
    await fs.mkdir(path.join(workspace, "sub"), { recursive: true })
    startEarlyServers(env, workspace)
    const [a, b] = earlyServerCommands(env, workspace)
    const [taken, other] = takeEarlyServers([a!, { ...b!, args: ["32"] }], 1000)
    expect(other).toBeUndefined()
    expect(taken).toBeDefined()
    await taken!.started
    const pid = taken!.child.pid!
    expect(isProcessAlive(pid)).toBe(true)
    // b's process was killed; a second take finds nothing (later sessions spawn their own).
    await expect.poll(async () => (await fs.readdir("/proc")).length > 0 && takeEarlyServers([b!], 1000)[0]).toBeUndefined()
    await taken!.kill(1000)
    expect(isProcessAlive(pid)).toBe(false)
  })
})
