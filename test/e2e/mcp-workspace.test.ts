/**
 * A workspace's `.crystal/mcp.json` through the compiled binary: its servers start only once
 * trusted (headless: --trust-project-tools or config "trustProjectTools"), a name config.json uses
 * stays the operator's, and `crystal mcp list` shows each server's source and trust. The server's
 * command writes a marker before it starts server-everything: no marker, no spawn.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import type { FakeLlm } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { everythingServer } from "../support/mcp/servers.ts"

const fakeServer = useFakeServers()

type Body = { tools?: Array<{ function: { name: string } }> }

const notes = (stdout: string) => jsonLines(stdout).filter((event) => event["type"] === "note").map((event) => String(event["text"]))
/** The tool names of the first request made from `from` on. */
const offered = (fake: FakeLlm, from = 0) => ((fake.requests[from]?.body as Body | undefined)?.tools ?? []).map((tool) => tool.function.name)
const exists = (file: string) => fs.access(file).then(() => true, () => false)

const markerOf = (sandbox: Sandbox) => path.join(sandbox.home, "..", "started.log")

const writeWorkspaceMcp = async (sandbox: Sandbox, extra: Record<string, unknown> = {}) => {
  const entry = {
    command: "sh",
    args: ["-c", `echo started >> ${JSON.stringify(markerOf(sandbox))} && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(everythingServer)} stdio`]
  }
  await fs.mkdir(path.join(sandbox.workspace, ".crystal"), { recursive: true })
  await fs.writeFile(path.join(sandbox.workspace, ".crystal", "mcp.json"), JSON.stringify({ mcpServers: { wsev: entry, ...extra } }))
}

describe("a workspace's .crystal/mcp.json in crystal run", () => {
  it("starts nothing untrusted (one note); --trust-project-tools and config trustProjectTools start it", async () => {
    const sandbox = await makeSandbox()
    await writeWorkspaceMcp(sandbox)
    const workspace = await fs.realpath(sandbox.workspace)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)

    fake.script([{ text: "nothing" }])
    const refused = await runCrystal(sandbox, ["run", "--format", "json", "count"])
    expect(refused.code).toBe(0)
    const refusal = notes(refused.stdout).filter((note) => note.includes("wsev"))
    expect(refusal).toHaveLength(1)
    expect(refusal[0]?.split("\n").slice(0, 2)).toEqual([
      `not offered until you trust them: wsev (from ${workspace}; answer yes when asked, or pass --trust-project-tools)`,
      expect.stringMatching(/^ {2}MCP server wsev: sh -c "echo started >> /)
    ])
    expect(offered(fake).some((name) => name.startsWith("mcp__"))).toBe(false)
    expect(await exists(markerOf(sandbox))).toBe(false)

    fake.script([{ toolCalls: [{ name: "mcp__wsev__echo", arguments: { message: "from the workspace" } }] }, { text: "Done." }])
    const trusted = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "--trust-project-tools", "echo"])
    expect(trusted.code).toBe(0)
    expect(jsonLines(trusted.stdout).find((event) => event["type"] === "tool_result")).toMatchObject({ name: "mcp__wsev__echo", ok: true, output: "Echo: from the workspace" })
    expect(await exists(markerOf(sandbox))).toBe(true)
    // The flag trusts for this run only.
    expect(await exists(path.join(sandbox.home, "trust.json"))).toBe(false)

    await writeLocalConfig(sandbox, fake.url, { trustProjectTools: true })
    const before = fake.requests.length
    fake.script([{ text: "ok" }])
    const byConfig = await runCrystal(sandbox, ["run", "--format", "json", "hi"])
    expect(byConfig.code).toBe(0)
    expect(offered(fake, before)).toContain("mcp__wsev__echo")
  })

  it("keeps config.json's server when the workspace names one the same, with a note", async () => {
    const sandbox = await makeSandbox()
    await writeWorkspaceMcp(sandbox, { mine: { command: "crystal-no-such-server" } })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { mine: { command: process.execPath, args: [everythingServer, "stdio"] } } })
    fake.script([{ toolCalls: [{ name: "mcp__mine__echo", arguments: { message: "home" } }] }, { text: "Done." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "--trust-project-tools", "echo"])
    expect(result.code).toBe(0)
    const file = path.join(await fs.realpath(sandbox.workspace), ".crystal", "mcp.json")
    expect(notes(result.stdout)).toContain(`MCP server mine in ${file} is ignored: config.json names a server mine too, and the operator's own wins`)
    expect(jsonLines(result.stdout).find((event) => event["type"] === "tool_result")).toMatchObject({ name: "mcp__mine__echo", ok: true, output: "Echo: home" })
  })
})

describe("crystal mcp list with a workspace", () => {
  it("shows config.json's servers and the workspace's, with source and trust, starting none", async () => {
    const sandbox = await makeSandbox()
    await writeWorkspaceMcp(sandbox)
    await fs.writeFile(path.join(sandbox.home, "config.json"), JSON.stringify({ mcpServers: { web: { url: "http://127.0.0.1:9/mcp" } } }))
    const table = await runCrystal(sandbox, ["mcp", "list"])
    expect(table.code).toBe(0)
    expect(table.stdout.split("\n")[0]).toMatch(/^NAME\s+SOURCE\s+TRUSTED\s+TRANSPORT\s+ENABLED\s+TRUST ANNOTATIONS\s+SAMPLING\s+COMMAND OR URL$/)
    expect(table.stdout).toMatch(/^web\s+config\.json\s+-\s+http\s+yes\s+no\s+no\s+http:\/\/127\.0\.0\.1:9\/mcp$/m)
    expect(table.stdout).toMatch(/^wsev\s+workspace\s+no\s+stdio\s+yes\s+no\s+no\s+sh -c /m)
    const show = await runCrystal(sandbox, ["mcp", "show", "wsev"])
    expect(show.code).not.toBe(0)
    expect(show.stderr).toContain("MCP server 'wsev' comes from")
    expect(show.stderr).toContain("is not trusted")
    expect(await exists(markerOf(sandbox))).toBe(false)
  })
})
