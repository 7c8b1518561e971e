/**
 * The trust question in the interactive UI of the compiled binary (tmux), issue 23, item 3: it
 * shows everything a workspace MCP server runs — command, args, cwd, every env key and value, a
 * credential masked — and trusting `./server.sh` trusts its bytes: changing the script after the
 * yes asks again.
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
const token = "ghp_0123456789abcdefghij"

describe.runIf(tmuxAvailable())("the trust question in a terminal session", () => {
  it("shows cwd and every env value (NODE_OPTIONS too, a token masked); a changed ./server.sh asks again", async () => {
    const sandbox = await makeSandbox({ "x.cjs": "// would run inside the server\n" })
    const script = path.join(sandbox.workspace, "server.sh")
    await fs.writeFile(script, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(everythingServer)} stdio\n`, { mode: 0o755 })
    const entry = { command: "./server.sh", args: ["--verbose"], env: { NODE_OPTIONS: "--require ./x.cjs", GITHUB_TOKEN: token } }
    await fs.mkdir(path.join(sandbox.workspace, ".crystal"))
    await fs.writeFile(path.join(sandbox.workspace, ".crystal", "mcp.json"), JSON.stringify({ mcpServers: { srv: entry } }))
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    const workspace = await fs.realpath(sandbox.workspace)
    const open = (where: Sandbox) => {
      const terminal = openTerminal([crystalBinary], { cwd: where.workspace, env: { ...where.env, TERM: "xterm" } })
      cleanups.push(() => terminal.close())
      return terminal
    }

    const first = open(sandbox)
    const question = await first.waitFor(/Trust them\?/)
    expect(question).toContain("MCP server srv: ./server.sh --verbose")
    expect(question).toContain(`cwd ${workspace}`)
    expect(question).toContain('env NODE_OPTIONS="--require ./x.cjs"')
    expect(question).toContain('env GITHUB_TOKEN="ghp_…" (masked)')
    expect(question).not.toContain(token)
    first.press("Left", "Enter")
    await first.waitFor(ready)
    first.press("C-d")
    await first.waitFor(/EXIT=/)

    // Trusted: no question while nothing changed.
    const second = open(sandbox)
    await second.waitFor(ready)
    expect(second.screen()).not.toContain("Trust them?")
    second.press("C-d")
    await second.waitFor(/EXIT=/)

    // The entry is the same, the script it runs is not: asked again.
    await fs.appendFile(script, "# and one more line\n")
    const third = open(sandbox)
    const again = await third.waitFor(/Trust them\?/)
    expect(again).toContain("MCP server srv: ./server.sh --verbose")
    third.press("Enter")
    await third.waitFor(/not offered until you trust them: srv/)
  })
})
