/** Text from outside that tries to drive the terminal, through the compiled binary's listings. */
import { describe, expect, it } from "vitest"
import { makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { probeServer } from "../support/mcp/servers.ts"

const fakeServer = useFakeServers()

describe("crystal mcp show", () => {
  it("lists a tool whose description sets the window title and writes the clipboard as symbols, in both formats", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const env = { MCP_PROBE_TOOL: "shout", MCP_PROBE_DESCRIPTION: "Shouts\x1b]0;pwned\x07 \x1b]52;c;cHduZWQ=\x07 \x1b[2J" }
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { probe: { command: process.execPath, args: [probeServer], env } } })
    for (const format of ["table", "text"]) {
      const shown = await runCrystal(sandbox, ["mcp", "show", "--format", format, "probe"])
      expect(shown.code).toBe(0)
      expect(shown.stdout).toContain("Shouts␛]0;pwned␇ ␛]52;c;cHduZWQ=␇ ␛[2J")
      expect(shown.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/)
    }
  })
})
