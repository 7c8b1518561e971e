/**
 * MCP sampling with the binary: crystal run declines it with a note (nobody to approve); a server
 * without `"sampling": true` that asks anyway is told it is off; in a terminal session (tmux) the
 * operator approves and the model's answer reaches server-everything and comes back in its result.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { crystalBinary, jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import type { Reply } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { everythingServer, probeServer } from "../support/mcp/servers.ts"
import { openTerminal, tmuxAvailable, type Terminal } from "../support/tmux.ts"

const fakeServer = useFakeServers()

const everything = (sampling: boolean) => ({ command: process.execPath, args: [everythingServer, "stdio"], ...(sampling ? { sampling: true } : {}) })

describe("MCP sampling in crystal run", () => {
  it('with "sampling": true, nobody can approve it: the server is told so, and the operator gets a note', async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { everything: everything(true) } })
    fake.script([{ toolCalls: [{ name: "mcp__everything__trigger-sampling-request", arguments: { prompt: "hi" } }] }, { text: "It was declined." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "sample something"])
    expect(result.code).toBe(0)
    const events = jsonLines(result.stdout)
    expect(events.filter((event) => event["type"] === "note").map((event) => event["text"])).toContain(
      "MCP server everything asked to use your model (sampling); declined: nobody to approve it in crystal run."
    )
    const toolResult = events.find((event) => event["type"] === "tool_result")
    expect(toolResult).toMatchObject({ name: "mcp__everything__trigger-sampling-request", ok: false })
    expect(String(toolResult?.["output"])).toContain("The sampling request was declined: Crystal runs without an operator to approve it (crystal run).")
    // Only the turn's two requests: no side request was made.
    expect(fake.requests.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(2)
  })

  it("without it, server-everything offers no sampling tool, and a server that asks anyway hears it is off and how to turn it on (a note on stderr)", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { everything: everything(false), probe: { command: process.execPath, args: [probeServer] } } })
    fake.script([{ toolCalls: [{ name: "mcp__probe__sample", arguments: { prompt: "hi" } }] }, { text: "Off, then." }])
    const result = await runCrystal(sandbox, ["run", "--approval", "full", "sample something"])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(
      'MCP server probe asked to use your model (sampling), which is off for it: "sampling": true in its entry (config.json) allows it, each request approved by you.'
    )
    const first = fake.requests[0]?.rawBody ?? ""
    expect(first).toContain("mcp__everything__echo")
    expect(first).not.toContain("trigger-sampling-request")
    const toolResult = fake.requests[1]?.rawBody ?? ""
    expect(toolResult).toContain(
      `sampling failed: MCP error -32601: Sampling is off for this server (probe) in Crystal. The operator can turn it on with \\"sampling\\": true in mcpServers.probe of Crystal's config.json; each request is then approved by the operator.`
    )
  })
})

describe.runIf(tmuxAvailable())("MCP sampling in a terminal session", () => {
  it("the operator approves the request; the model's answer reaches the server and comes back in the tool result", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { everything: everything(true) } })
    // Each request answered by what it is: the session's title, the server's sampling request, or the turn.
    const reply: Reply = (request) => {
      const body = JSON.stringify(request.body)
      if (body.includes("Name this coding session")) return { text: "Sampling" }
      if (body.includes("You are a helpful test server.")) return { text: "Cerulean, said the model." }
      if (body.includes("Cerulean, said the model.")) return { text: "The server heard cerulean." }
      return { toolCalls: [{ name: "mcp__everything__trigger-sampling-request", arguments: { prompt: "name a colour", maxTokens: 50 } }] }
    }
    fake.script([reply, reply, reply, reply])
    const terminal: Terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    try {
      await terminal.waitFor(/approval default · local\/test-model/)
      terminal.type("ask the server to sample")
      terminal.press("Enter")
      await terminal.waitFor(/Allow once/)
      terminal.press("Enter")
      const question = await terminal.waitFor(/Decline/)
      expect(question).toContain("everything: sampling: MCP server everything asks local/test-model for an answer of at most 50")
      expect(question).toContain("System prompt: You are a helpful test server.")
      expect(question).toContain("user: Resource trigger-sampling-request context: name a colour")
      // The dialog starts on Decline: Send is the option above it.
      terminal.press("Up")
      terminal.press("Enter")
      await terminal.waitFor(/The server heard cerulean\./, 20_000)
      const requests = fake.requests.filter((request) => request.path === "/v1/chat/completions" && !JSON.stringify(request.body).includes("Name this coding session"))
      expect(requests).toHaveLength(3)
      expect(requests[1]?.rawBody).toContain("You are a helpful test server.")
      // The tool result the model got is server-everything's print of what Crystal answered.
      expect(requests[2]?.rawBody).toContain("LLM sampling result:")
      expect(requests[2]?.rawBody).toContain('\\"text\\": \\"Cerulean, said the model.\\"')
      expect(requests[2]?.rawBody).toContain('\\"model\\": \\"local/test-model\\"')
      terminal.press("C-d")
      // Closed by Crystal itself (its servers with it), not by tmux killing the pane.
      await terminal.waitFor(/EXIT=0/)
    } finally {
      terminal.close()
    }
    // Nothing of the side request is in the session file.
    const sessions = path.join(sandbox.home, "sessions")
    const saved = await Promise.all((await fs.readdir(sessions)).filter((file) => file.endsWith(".json")).map((file) => fs.readFile(path.join(sessions, file), "utf8")))
    expect(saved.join("\n")).not.toContain("You are a helpful test server.")
  })
})
