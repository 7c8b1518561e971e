/** A server's elicitation in crystal run: nobody to ask, so it is declined, with a note, and the turn goes on. */
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { everythingServer } from "../support/mcp/servers.ts"

const fakeServer = useFakeServers()

describe("MCP elicitation in crystal run", () => {
  it("declines server-everything's trigger-elicitation-request with a note", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { everything: { command: process.execPath, args: [everythingServer, "stdio"] } } })
    fake.script([{ toolCalls: [{ name: "mcp__everything__trigger-elicitation-request", arguments: {} }] }, { text: "Declined, fine." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "ask me"])
    expect(result.code).toBe(0)
    const events = jsonLines(result.stdout)
    expect(events.filter((event) => event["type"] === "note").map((event) => String(event["text"]))).toContain(
      "MCP server everything asked for input (Please provide inputs for the following fields:); declined: nobody to answer in crystal run."
    )
    const toolResult = events.find((event) => event["type"] === "tool_result")
    expect(toolResult).toMatchObject({ name: "mcp__everything__trigger-elicitation-request", ok: true })
    expect(String(toolResult?.["output"])).toContain("User declined to provide the requested information")
  })
})
