/** config.json's stdio servers planned and spawned before the session exists (src/mcp/early-servers.ts). */
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { isProcessAlive } from "../../../src/bash/process-tree.ts"
import { shellEnvironment } from "../../../src/bash/shell-env.ts"
import { commandKey, earlyServerCommands, startEarlyServers, takeEarlyServers } from "../../../src/mcp/early-servers.ts"
import { readRawConfig } from "../../../src/config/raw-config.ts"
import { planServer } from "../../../src/mcp/server-config.ts"
import { waitForProcesses } from "../../support/processes.ts"
import { tempDir } from "../../support/temp.ts"

const bun = path.resolve(import.meta.dirname, "../../../node_modules/.bin/bun")
const earlyStartChild = path.resolve(import.meta.dirname, "../../support/mcp/early-start-child.ts")
/** A `sleep` argument no other test uses: what the machine-wide process checks look for. */
const uniqueSleep = (): string => `3000.${Math.floor(Math.random() * 1e9)}`

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

  it("plans nothing from a config.json it cannot read, or whose entry or shell settings have another shape", async () => {
    const broken = await homeWith('{ "mcpServers": ')
    expect(earlyServerCommands(broken.env, broken.workspace)).toEqual([])
    const shapeless = await homeWith({ mcpServers: { a: { command: "sleep", args: "30" } } })
    expect(earlyServerCommands(shapeless.env, shapeless.workspace)).toEqual([])
    // A malformed exclusion must not let through, even for a moment, a variable meant to be kept out.
    const badShell = await homeWith({ shellEnv: { exclude: "TOKEN" }, mcpServers: { a: sleeper } })
    expect(earlyServerCommands(badShell.env, badShell.workspace)).toEqual([])
    const badProvider = await homeWith({ providers: { p: { apiKeyEnv: ["TOKEN"] } }, mcpServers: { a: sleeper } })
    expect(earlyServerCommands(badProvider.env, badProvider.workspace)).toEqual([])
  })

  it("hands a process over once for its exact command and kills the ones nobody took", async () => {
    const [aMark, bMark] = [uniqueSleep(), uniqueSleep()]
    const { env, workspace } = await homeWith({ mcpServers: { a: { command: "sleep", args: [aMark] }, b: { command: "sleep", args: [bMark] } } })
    startEarlyServers(env, workspace, readRawConfig(env))
    const [a, b] = earlyServerCommands(env, workspace)
    expect(await waitForProcesses(`sleep\u0000${bMark}`, (n) => n === 1)).toHaveLength(1)
    const [taken, other] = takeEarlyServers([a!, { ...b!, args: ["32"] }], 1000)
    expect(other).toBeUndefined()
    expect(taken).toBeDefined()
    await taken!.started
    const pid = taken!.child.pid!
    expect(isProcessAlive(pid)).toBe(true)
    // b's process, which nobody took, dies; a second take finds nothing (later sessions spawn their own).
    expect(await waitForProcesses(`sleep\u0000${bMark}`, (n) => n === 0)).toEqual([])
    expect(takeEarlyServers([a!], 1000)).toEqual([undefined])
    await taken!.kill(1000)
    expect(isProcessAlive(pid)).toBe(false)
  })

  it("a signal in Crystal's first milliseconds, before the session's handlers, exits as the signal would and leaves no server", async () => {
    const mark = uniqueSleep()
    const { env, workspace } = await homeWith({ mcpServers: { a: { command: "sleep", args: [mark] } } })
    const child = spawn(bun, [earlyStartChild, "run", "hi"], { cwd: workspace, env, stdio: ["ignore", "pipe", "inherit"] })
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
    expect(await waitForProcesses(`sleep\u0000${mark}`, (n) => n === 1)).toHaveLength(1)
    // The pid file that lets the next crystal reap what a SIGKILL would leave is there already.
    const runDir = path.join(env["CRYSTAL_HOME"] ?? "", "run")
    expect(await fs.readdir(runDir)).toEqual([`${child.pid}.json`])
    child.kill("SIGTERM")
    expect(await exited).toBe(143)
    expect(await waitForProcesses(`sleep\u0000${mark}`, (n) => n === 0)).toEqual([])
    expect(await fs.readdir(runDir)).toEqual([])
  })
})
