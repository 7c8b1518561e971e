/**
 * A workspace's `.crystal/mcp.json` in the interactive UI (tmux): the one trust question names the
 * server and what it runs; yes starts it (its tools in /mcp) and is remembered; no starts nothing.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm } from "../support/fake-llm/server.ts"
import { everythingServer } from "../support/mcp/servers.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const ready = /approval default · local\/test-model/

describe.runIf(tmuxAvailable())("a workspace's MCP servers in a terminal session", () => {
  it("asks to trust the workspace's server, starts it on yes, remembers it; on no it never starts", async () => {
    const sandbox = await makeSandbox()
    const marker = path.join(sandbox.home, "..", "started.log")
    const entry = { command: "sh", args: ["-c", `echo started >> ${marker} && exec ${process.execPath} ${everythingServer} stdio`] }
    await fs.mkdir(path.join(sandbox.workspace, ".crystal"), { recursive: true })
    await fs.writeFile(path.join(sandbox.workspace, ".crystal", "mcp.json"), JSON.stringify({ mcpServers: { wsev: entry } }))
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    const open = (where: Sandbox) => {
      const terminal = openTerminal([crystalBinary], { cwd: where.workspace, env: { ...where.env, TERM: "xterm" } })
      cleanups.push(() => terminal.close())
      return terminal
    }

    // No: nothing starts, one note names the server.
    const refusing = open(sandbox)
    const question = await refusing.waitFor(/Trust them\?/)
    expect(question).toContain('MCP server wsev: sh -c "echo started')
    refusing.press("Enter")
    await refusing.waitFor(/not offered until you trust them: wsev/)
    refusing.press("C-d")
    await expect(fs.access(marker)).rejects.toThrow()

    // Yes: it starts, /mcp lists it, and the answer is stored.
    const trusting = open(sandbox)
    await trusting.waitFor(/Trust them\?/)
    trusting.press("Left", "Enter")
    await trusting.waitFor(ready)
    // The server may still be starting the first time /mcp asks; it joins once ready.
    for (let i = 0; i < 40 && !/wsev ready over stdio · \d+ tools/.test(trusting.screen()); i++) {
      trusting.type("/mcp")
      trusting.press("Enter")
      await trusting.waitFor(/wsev (starting|ready)/)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    await trusting.waitFor(/wsev ready over stdio · \d+ tools · \.crystal\/mcp\.json · /)
    trusting.press("C-d")
    await fs.access(marker)
    const stored = JSON.parse(await fs.readFile(path.join(sandbox.home, "trust.json"), "utf8")) as { trusted: Array<{ kind: string; name: string }> }
    expect(stored.trusted.map((e) => [e.kind, e.name])).toEqual([["mcp", "wsev"]])

    const again = open(sandbox)
    await again.waitFor(ready)
    expect(again.screen()).not.toContain("Trust them?")
  })
})
