/**
 * A provider key in Crystal's environment never appears in any byte Crystal writes or sends
 * (README "Secrets"): driven through the compiled binary across the shell tools, /proc, file
 * reads, a cut long line, background logs read at offsets, a spilled output, a timeout, a tool
 * error and `sessions export`. Every file under the home and the workspace, every export and every
 * request the fake server received is searched for each key and for every 12-character piece of it.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"
import { probeServer } from "../support/mcp/servers.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const key = (prefix: string): string => `${prefix}${randomBytes(24).toString("hex")}`

/** Every file under `root` (recursively), but `skip`. */
const filesUnder = async (root: string, skip: ReadonlySet<string>): Promise<Array<string>> => {
  const found: Array<string> = []
  for (const entry of await fs.readdir(root, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name)
    if (entry.isFile() && !skip.has(file)) found.push(file)
  }
  return found
}

/** The first 12-character piece of any key found in `text`, or undefined. */
const leakIn = (text: string, keys: ReadonlyArray<string>): string | undefined => {
  for (const value of keys) {
    for (let at = 0; at + 12 <= value.length; at++) {
      if (text.includes(value.slice(at, at + 12))) return value.slice(at, at + 12)
    }
  }
  return undefined
}

const environ = "tr '\\0' '\\n' < /proc/$PPID/environ"

/**
 * A PATH without bwrap: an auto-approved read would otherwise run in the sandbox, whose own /proc
 * hides Crystal's environment; here the redaction is what is tested.
 */
const pathWithoutBwrap = async (root: string): Promise<string> => {
  const bin = path.join(root, "bin")
  await fs.mkdir(bin, { recursive: true })
  for (const dir of (process.env["PATH"] ?? "/usr/bin:/bin").split(path.delimiter).reverse()) {
    const names = await fs.readdir(dir).catch(() => [])
    for (const name of names) {
      if (name === "bwrap") continue
      await fs.rm(path.join(bin, name), { force: true })
      await fs.symlink(path.join(dir, name), path.join(bin, name)).catch(() => undefined)
    }
  }
  return bin
}

describe("secrets", () => {
  it("no planted key reaches a file under the home or the workspace, an export, or a request", async () => {
    const openai = key("sk-")
    const anthropic = key("sk-ant-")
    const corp = key("corp-")
    const local = key("loc-")
    const sandbox = await makeSandbox({
      // The operator's own file holding a key (read, grepped, edited below); the only file allowed to hold one.
      "secrets.env": `OPENAI_API_KEY=${openai}\n${"x".repeat(1990)}${anthropic}\nCORP=${corp}\n`
    })
    const planted = path.join(sandbox.workspace, "secrets.env")
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url, {
      providers: {
        local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, apiKeyEnv: "LOCAL_API_KEY", models: { "test-model": { contextWindow: 200000 } } },
        corp: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, apiKeyEnv: "CORP_TOKEN" }
      },
      bashTimeoutSeconds: 3
    })
    const env = {
      OPENAI_API_KEY: openai,
      ANTHROPIC_API_KEY: anthropic,
      CORP_TOKEN: corp,
      LOCAL_API_KEY: local,
      PATH: await pathWithoutBwrap(path.join(path.dirname(sandbox.home), "tools"))
    }
    const logWindows = [0, 5, 18, 30, 47, 60].map((offset) => ({ name: "bash_logs", arguments: { id: "bg1", offset, limit: 64 } }))
    fake.script([
      { toolCalls: [{ name: "bash", arguments: { command: `printenv; echo ---; env | grep -i -e key -e token; echo ---; ${environ}` } }] },
      { toolCalls: [{ name: "read", arguments: { path: "secrets.env" } }, { name: "grep", arguments: { pattern: "API_KEY|CORP", path: "." } }] },
      { toolCalls: [{ name: "bash_start", arguments: { command: `${environ} | grep -e API_KEY -e TOKEN; sleep 0.3` } }] },
      { delayMs: 600, toolCalls: [{ name: "bash_logs", arguments: { id: "bg1" } }, ...logWindows] },
      // Far more than a result shows: spilled to a file.
      { toolCalls: [{ name: "bash", arguments: { command: `for i in $(seq 1 300); do cat /proc/$PPID/environ; done | tr '\\0' '\\n'` } }] },
      { toolCalls: [{ name: "bash", arguments: { command: `${environ} | grep KEY; sleep 10` } }] },
      { toolCalls: [{ name: "bash", arguments: { command: `${environ} | grep KEY; exit 3` } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "secrets.env", old_string: "OPENAI_API_KEY=sk-wrong\nxxxx", new_string: "nothing" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "cat /proc/$PPID/cmdline /proc/self/environ | tr '\\0' '\\n'; ps eww -p $PPID 2>&1 | tail -n 1" } }] },
      { text: "All done." }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "look around"], { env })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(fake.remainingReplies()).toBe(0)

    const results = jsonLines(result.stdout).filter((event) => event["type"] === "tool_result")
    const outputs = results.map((event) => String(event["output"]))
    expect(outputs).toHaveLength(8 + 2 + logWindows.length)
    // The commands' environment has no key at all; what /proc shows of Crystal's own is redacted.
    const [printenv] = outputs
    expect(printenv?.split("---")[0]).not.toMatch(/OPENAI_API_KEY|ANTHROPIC_API_KEY|CORP_TOKEN|LOCAL_API_KEY/)
    expect(printenv).toContain("OPENAI_API_KEY=[redacted]")
    expect(printenv).toContain("LOCAL_API_KEY=[redacted]")
    // The long line is cut 10 characters into the key: those go too.
    expect(outputs[1]).toContain(`x[redacted]… [+${anthropic.length - 10} chars]`)
    expect(outputs.join("\n").match(/\[… .*not shown.*…\]/)?.[0]).toMatch(/full output saved to .*spill/)
    expect(outputs.some((text) => text.startsWith("timed out"))).toBe(true)
    expect(results.some((event) => event["ok"] === false)).toBe(true)

    const exported = await runCrystal(sandbox, ["sessions", "export", "--output", "-", String(jsonLines(result.stdout).find((event) => event["type"] === "session")?.["id"] ?? "")])
    const exportedFile = await runCrystal(sandbox, ["sessions", "export", String(jsonLines(result.stdout).find((event) => event["type"] === "session")?.["id"] ?? "")])
    expect(exported.code).toBe(0)
    expect(exportedFile.code).toBe(0)
    expect(exported.stdout).toContain("[redacted]")

    const keys = [openai, anthropic, corp, local]
    const files = [...(await filesUnder(sandbox.home, new Set())), ...(await filesUnder(sandbox.workspace, new Set([planted])))]
    expect(files.some((file) => file.includes(`${path.sep}spill${path.sep}`))).toBe(true)
    expect(files.some((file) => path.basename(file).startsWith("crystal-session-"))).toBe(true)
    const leaks: Array<string> = []
    for (const file of files) {
      const found = leakIn(await fs.readFile(file, "latin1"), keys)
      if (found !== undefined) leaks.push(`${file}: ${found}`)
    }
    for (const [index, request] of fake.requests.entries()) {
      // The active provider's own key goes where it must: its Authorization header, nowhere else.
      const { authorization, ...headers } = request.headers
      expect(authorization).toBe(`Bearer ${local}`)
      const found = leakIn(JSON.stringify({ headers, body: request.body }), keys)
      if (found !== undefined) leaks.push(`request ${index + 1}: ${found}`)
    }
    for (const [name, text] of Object.entries({ stdout: result.stdout, export: exported.stdout })) {
      const found = leakIn(text, keys)
      if (found !== undefined) leaks.push(`${name}: ${found}`)
    }
    expect(leaks).toEqual([])
  })

  it("an MCP server that names a tool after a key it read from Crystal's /proc/PID/environ: the tool is not offered, and the key is nowhere", async () => {
    const openai = key("sk-")
    const local = key("loc-")
    const sandbox = await makeSandbox()
    const fake = await startFakeLlm()
    servers.push(fake)
    const probe = { command: process.execPath, args: [probeServer], env: { MCP_PROBE_STEAL: "OPENAI_API_KEY" } }
    await writeLocalConfig(sandbox, fake.url, {
      providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, apiKeyEnv: "LOCAL_API_KEY", models: { "test-model": { contextWindow: 200000 } } } },
      mcpServers: { probe }
    })
    const env = { OPENAI_API_KEY: openai, LOCAL_API_KEY: local }
    fake.script([{ toolCalls: [{ name: "mcp__probe__knows", arguments: { token: "x" } }] }, { text: "Done." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "use the tools"], { env })
    expect(result.code).toBe(0)
    const events = jsonLines(result.stdout)
    expect(events.filter((event) => event["type"] === "note").map((event) => event["text"])).toContain(
      "MCP server probe: 2 tools are not offered: their names hold a secret of this session (a key from Crystal's environment or a server's credential, or a piece of one)."
    )
    const tools = (fake.requests[0]?.body as { tools?: Array<{ function: { name: string; description?: string; parameters?: unknown } }> }).tools ?? []
    const offered = tools.map((tool) => tool.function.name).filter((name) => name.startsWith("mcp__probe__"))
    expect(offered).toContain("mcp__probe__knows")
    expect(offered.some((name) => name.startsWith("mcp__probe__leak_") || name.startsWith("mcp__probe__piece_"))).toBe(false)
    const knows = tools.find((tool) => tool.function.name === "mcp__probe__knows")?.function
    expect(knows?.description).toBe("Knows [redacted]")
    expect(JSON.stringify(knows?.parameters)).toContain("for example [redacted]")
    expect(events.find((event) => event["type"] === "tool_result")).toMatchObject({ name: "mcp__probe__knows", ok: true })

    const shown = await runCrystal(sandbox, ["mcp", "show", "probe"], { env })
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("mcp__probe__knows")
    expect(shown.stderr).toContain("crystal: MCP server probe: 2 tools are not offered")

    const leaks: Array<string> = []
    for (const [name, text] of Object.entries({ stdout: result.stdout, stderr: result.stderr, show: shown.stdout, showErrors: shown.stderr, requests: JSON.stringify(fake.requests.map((request) => request.body)) })) {
      const found = leakIn(text, [openai, local])
      if (found !== undefined) leaks.push(`${name}: ${found}`)
    }
    for (const file of await filesUnder(sandbox.home, new Set())) {
      const found = leakIn(await fs.readFile(file, "latin1"), [openai, local])
      if (found !== undefined) leaks.push(`${file}: ${found}`)
    }
    expect(leaks).toEqual([])
  })
})
