/** A server's elicitation in crystal run: nobody to ask, so it is declined, with a note, and the turn goes on. */
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { everythingServer, probeServer } from "../support/mcp/servers.ts"

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

  it("a message that sets the window title (OSC 0), writes the clipboard (OSC 52) and erases the screen (CSI, C1 CSI) reaches no stream as escapes, in text or JSON", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { probe: { command: process.execPath, args: [probeServer] } } })
    const message = "Hi\x1b]0;pwned\x07 \x1b]52;c;cHduZWQ=\x07 \x1b[2J\x1b[H\x9b2J"
    const script = () => fake.script([{ toolCalls: [{ name: "mcp__probe__elicit", arguments: { message } }] }, { text: "Declined, fine." }])
    script()
    const text = await runCrystal(sandbox, ["run", "--approval", "full", "ask me"])
    expect(text.code).toBe(0)
    expect(text.stdout).toBe("Declined, fine.\n")
    expect(text.stderr).toContain("MCP server probe asked for input (Hi␛]0;pwned␇ ␛]52;c;cHduZWQ=␇ ␛[2J␛[H\\x9b2J); declined: nobody to answer in crystal run.")
    script()
    const json = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "ask me"])
    expect(json.code).toBe(0)
    expect(jsonLines(json.stdout).filter((event) => event["type"] === "note").map((event) => event["text"])).toContain(
      `MCP server probe asked for input (${message}); declined: nobody to answer in crystal run.`
    )
    for (const stream of [text.stdout, text.stderr, json.stdout, json.stderr]) {
      expect(stream).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/)
    }
  })
})
