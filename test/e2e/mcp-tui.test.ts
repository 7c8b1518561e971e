/** MCP servers in the interactive UI (tmux): the approval dialog of an MCP call, /mcp and /mcp restart. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type RecordedRequest, type Reply } from "../support/fake-llm/server.ts"
import { everythingServer } from "../support/mcp/servers.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const isTitleRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("Name this coding session")
const titleOr = (reply: Reply): Reply => (request) => (isTitleRequest(request) ? { text: "MCP" } : typeof reply === "function" ? reply(request) : reply)

describe.runIf(tmuxAvailable())("MCP servers in a terminal session", () => {
  it("asks before an MCP call naming server, tool and arguments; /mcp shows the server; /mcp restart starts it again", async () => {
    const sandbox = await makeSandbox()
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    const file = await writeLocalConfig(sandbox, fake.url)
    const config = JSON.parse(await fs.readFile(file, "utf8")) as Record<string, unknown>
    await fs.writeFile(path.join(sandbox.home, "config.json"), JSON.stringify({ ...config, mcpServers: { everything: { command: process.execPath, args: [everythingServer, "stdio"] } } }))
    fake.script([titleOr({ toolCalls: [{ name: "mcp__everything__get-sum", arguments: { a: 2, b: 3 } }] }), titleOr({ text: "The sum is 5." }), titleOr({ text: "MCP" })])
    const terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(/approval default · local\/test-model/)
    terminal.type("add two and three")
    terminal.press("Enter")
    const dialog = await terminal.waitFor(/Allow once/)
    expect(dialog).toMatch(/mcp__everything__get-sum/)
    expect(dialog).toContain('MCP server everything: get-sum {"a":2,"b":3}')
    terminal.press("Enter")
    await terminal.waitFor(/The sum is 5\./)
    terminal.type("/mcp")
    terminal.press("Enter")
    const status = await terminal.waitFor(/everything ready over stdio · \d+ tools · config\.json · /)
    expect(status).toMatch(/get-sum/)
    terminal.type("/mcp restart everything")
    terminal.press("Enter")
    await terminal.waitFor(/MCP server everything restarted: \d+ tools \(stdio\)\./)
  })
})
