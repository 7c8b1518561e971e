/**
 * `crystal acp` driven by the ACP SDK's client side as an editor drives it: the compiled binary
 * over stdio, against the fake model server, with real files, processes and MCP servers.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { spawn } from "node:child_process"
import { crystalBinary, makeSandbox, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { allowOnce, messageText, startAcp, updatesOf, type AcpClient, type AcpClientOptions } from "../support/acp-client.ts"
import { everythingServer } from "../support/mcp/servers.ts"
import { processesWith } from "../support/processes.ts"
import { makePng } from "../support/images.ts"
import type { McpServer } from "@agentclientprotocol/sdk"

const fakeServer = useFakeServers()
const clients: Array<AcpClient> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

type Body = { messages: Array<{ role: string; content?: unknown }> }

const setup = async (options: AcpClientOptions = {}, files: Record<string, string> = {}) => {
  const sandbox = await makeSandbox(files)
  const fake = await fakeServer()
  await writeLocalConfig(sandbox, fake.url)
  const client = connect(sandbox, options)
  await client.initialize()
  return { sandbox, fake, client }
}

const connect = (sandbox: Sandbox, options: AcpClientOptions = {}) => {
  const client = startAcp(sandbox, options)
  clients.push(client)
  return client
}

const newSession = async (client: AcpClient, sandbox: Sandbox, mcpServers: Array<McpServer> = []) =>
  client.agent.request("session/new", { cwd: sandbox.workspace, mcpServers })

/** Every line on the agent's stdout is one JSON-RPC 2.0 message. */
const expectOnlyProtocol = (client: AcpClient) => {
  const lines = client.stdoutLines()
  expect(lines.length).toBeGreaterThan(0)
  for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" })
}

describe("crystal acp", () => {
  it("answers initialize with its capabilities, opens a session with its modes and streams a prompt's thinking and text", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const client = connect(sandbox)
    const init = await client.initialize()
    expect(init.protocolVersion).toBe(1)
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, promptCapabilities: { image: true, embeddedContext: true } })
    const session = await newSession(client, sandbox)
    expect(session.modes?.currentModeId).toBe("default")
    expect(session.modes?.availableModes.map((mode) => mode.id)).toEqual(["plan", "default", "edit", "review", "audit", "full"])
    fake.script([{ reasoning: "Thinking it over.", text: ["Hello", " from", " Crystal."] }])
    const answer = await client.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [
        { type: "text", text: "Say hello" },
        { type: "resource_link", name: "notes.md", uri: "file:///tmp/notes.md" },
        { type: "resource", resource: { uri: "file:///tmp/a.txt", text: "embedded words" } }
      ]
    })
    expect(answer.stopReason).toBe("end_turn")
    expect(messageText(client, session.sessionId, "agent_thought_chunk")).toBe("Thinking it over.")
    expect(messageText(client, session.sessionId, "agent_message_chunk")).toBe("Hello from Crystal.")
    expect(updatesOf(client, session.sessionId, "agent_message_chunk").length).toBeGreaterThan(1)
    const sent = JSON.stringify((fake.requests[0]?.body as Body).messages.at(-1))
    expect(sent).toContain("Say hello")
    expect(sent).toContain("[notes.md](file:///tmp/notes.md)")
    expect(sent).toContain('<resource uri=\\"file:///tmp/a.txt\\">\\nembedded words\\n</resource>')
    expectOnlyProtocol(client)
    // Answered once: by the start-up path, the SDK's own answer dropped (src/acp/early.ts).
    expect(client.stdoutLines().filter((line) => line.includes('"agentCapabilities"'))).toHaveLength(1)
    expect(await client.close()).toEqual({ code: 0, signal: null })
  })

  it("leaves a first message that is not initialize to the SDK, and answers an initialize sent in pieces", async () => {
    const sandbox = await makeSandbox()
    const talk = async (writes: ReadonlyArray<string>) => {
      const child = spawn(crystalBinary, ["acp"], { cwd: sandbox.workspace, env: sandbox.env, stdio: ["pipe", "pipe", "pipe"] })
      let out = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
      for (const text of writes) {
        child.stdin.write(text)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
      child.stdin.end()
      await new Promise((resolve) => child.on("close", resolve))
      return out.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>)
    }
    const early = await talk([`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"${sandbox.workspace}","mcpServers":[]}}\n`])
    expect(early).toMatchObject([{ id: 7, error: { code: -32600 } }])
    const pieces = await talk(['{"jsonrpc":"2.0","id":"a","method":"initi', 'alize","params":{"protocolVersion":1}}\n'])
    expect(pieces).toMatchObject([{ id: "a", result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } }])
  })

  it("sends an image from the prompt to a model that takes images", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, {
      providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { "test-model": { contextWindow: 32768, imageInput: true } } } }
    })
    const client = connect(sandbox)
    await client.initialize()
    const session = await newSession(client, sandbox)
    fake.script([{ text: "A small picture." }])
    const png = makePng(4, 4).toString("base64")
    const answer = await client.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "What is this?" }, { type: "image", mimeType: "image/png", data: png }]
    })
    expect(answer.stopReason).toBe("end_turn")
    const sent = JSON.stringify((fake.requests[0]?.body as Body).messages.at(-1))
    expect(sent).toContain("[Image #1]")
    expect(sent).toContain(`data:image/png;base64,${png}`)
  })

  it("shows a read as a tool call with its kind, title and location, then its result", async () => {
    const { sandbox, fake, client } = await setup({}, { "src/a.txt": "alpha\nbeta\n" })
    const session = await newSession(client, sandbox)
    fake.script([{ toolCalls: [{ id: "call-read", name: "read", arguments: { path: "src/a.txt", offset: 2 } }] }, { text: "Read it." }])
    const answer = await client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "read a.txt" }] })
    expect(answer.stopReason).toBe("end_turn")
    const [call] = updatesOf(client, session.sessionId, "tool_call")
    expect(call).toMatchObject({
      toolCallId: "call-read",
      kind: "read",
      title: "Read src/a.txt",
      status: "pending",
      locations: [{ path: path.join(sandbox.workspace, "src/a.txt"), line: 2 }]
    })
    const statuses = updatesOf(client, session.sessionId, "tool_call_update").map((update) => update.status).filter((status) => status !== undefined)
    expect(statuses).toEqual(["in_progress", "completed"])
    expect(JSON.stringify(updatesOf(client, session.sessionId, "tool_call_update").at(-1)?.content)).toContain("beta")
    expect(client.permissions).toEqual([])
  })

  it("shows an edit as a diff of the file, and the todo list as the plan", async () => {
    const { sandbox, fake, client } = await setup({}, { "notes.txt": "one\ntwo\n" })
    const session = await newSession(client, sandbox)
    await client.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "edit" })
    const todos = [
      { content: "Change two", status: "in_progress", priority: "high" },
      { content: "Check it", status: "pending", priority: "low" }
    ]
    fake.script([
      { toolCalls: [{ id: "todo-1", name: "todowrite", arguments: { todos } }] },
      { toolCalls: [{ id: "edit-1", name: "edit", arguments: { path: "notes.txt", old_string: "two", new_string: "TWO" } }] },
      { text: "Changed." }
    ])
    const answer = await client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "change two" }] })
    expect(answer.stopReason).toBe("end_turn")
    expect(await fs.readFile(path.join(sandbox.workspace, "notes.txt"), "utf8")).toBe("one\nTWO\n")
    expect(updatesOf(client, session.sessionId, "plan")).toEqual([{ sessionUpdate: "plan", entries: todos }])
    const edit = updatesOf(client, session.sessionId, "tool_call").find((call) => call.toolCallId === "edit-1")
    expect(edit).toMatchObject({ kind: "edit", title: "Edit notes.txt", locations: [{ path: path.join(sandbox.workspace, "notes.txt") }] })
    const done = updatesOf(client, session.sessionId, "tool_call_update").find((update) => update.toolCallId === "edit-1" && update.status === "completed")
    expect(done?.content?.[0]).toEqual({ type: "diff", path: path.join(sandbox.workspace, "notes.txt"), oldText: "one\ntwo\n", newText: "one\nTWO\n" })
    expect(client.permissions).toEqual([])
  })

  it("session/cancel stops a running command and the prompt answers cancelled", async () => {
    const { sandbox, fake, client } = await setup()
    const session = await newSession(client, sandbox)
    await client.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "full" })
    const marker = `acp-cancel-${process.pid}-${Date.now()}`
    fake.script([{ toolCalls: [{ id: "long", name: "bash", arguments: { command: `sh -c 'sleep 30; touch late.txt' ${marker}` } }] }])
    const prompt = client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "wait" }] })
    await until(async () => (await processesWith(marker)).length > 0)
    await client.agent.notify("session/cancel", { sessionId: session.sessionId })
    expect((await prompt).stopReason).toBe("cancelled")
    expect(await processesWith(marker)).toEqual([])
    expect(fake.requests.length).toBe(1)
    expect(updatesOf(client, session.sessionId, "tool_call_update").filter((update) => update.toolCallId === "long").map((update) => update.status)).toEqual(["in_progress", "failed"])
    // The session goes on: the next prompt runs.
    fake.script([{ text: "Still here." }])
    expect((await client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "again" }] })).stopReason).toBe("end_turn")
    expect(messageText(client, session.sessionId, "agent_message_chunk")).toBe("Still here.")
  })

  it("a $/cancel_request of the prompt cancels its turn as session/cancel does", async () => {
    const { sandbox, fake, client } = await setup()
    const session = await newSession(client, sandbox)
    await client.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "full" })
    const marker = `acp-cancel-request-${process.pid}-${Date.now()}`
    fake.script([{ toolCalls: [{ id: "long", name: "bash", arguments: { command: `sh -c 'sleep 30' ${marker}` } }] }])
    const abort = new AbortController()
    const prompt = client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "wait" }] }, { cancellationSignal: abort.signal })
    await until(async () => (await processesWith(marker)).length > 0)
    abort.abort()
    expect((await prompt).stopReason).toBe("cancelled")
    expect(await processesWith(marker)).toEqual([])
  })

  it("a failed turn is a one-line error with the session's secrets redacted", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const key = "sk-acp-secret-0123456789abcdef"
    sandbox.env["LOCAL_KEY"] = key
    await writeLocalConfig(sandbox, fake.url, {
      providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, apiKeyEnv: "LOCAL_KEY", models: { "test-model": { contextWindow: 32768 } } } }
    })
    const client = connect(sandbox)
    await client.initialize()
    const session = await newSession(client, sandbox)
    fake.script([{ kind: "error", status: 400, message: `invalid request for key ${key}` }])
    const error = await client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "hi" }] }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Error)
    const message = (error as Error).message
    expect(message).toContain("invalid request for key")
    expect(message).not.toContain(key)
    expect(message).not.toContain("\n")
    expect(client.stdoutLines().join("\n")).not.toContain(key)
  })

  it("starts the MCP servers the client names and calls their tools, which ask like config.json's", async () => {
    const { sandbox, fake, client } = await setup({ permission: allowOnce })
    const session = await newSession(client, sandbox, [{ name: "everything", command: process.execPath, args: [everythingServer, "stdio"], env: [] }])
    fake.script([{ toolCalls: [{ id: "echo-1", name: "mcp__everything__echo", arguments: { message: "from the editor's server" } }] }, { text: "Done." }])
    const answer = await client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "echo" }] })
    expect(answer.stopReason).toBe("end_turn")
    expect(updatesOf(client, session.sessionId, "tool_call")[0]).toMatchObject({ toolCallId: "echo-1", title: "everything: echo", kind: "other" })
    expect(client.permissions.map((asked) => asked.toolCall.toolCallId)).toEqual(["echo-1"])
    const done = updatesOf(client, session.sessionId, "tool_call_update").find((update) => update.status === "completed")
    expect(JSON.stringify(done?.content)).toContain("Echo: from the editor's server")
    // The server's own output goes to Crystal, not to the editor's protocol stream.
    expectOnlyProtocol(client)
  })

  it("a client server named like a config.json server keeps the operator's tools.deny", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { everything: { command: process.execPath, args: [everythingServer, "stdio"], tools: { deny: ["echo"] } } } })
    const client = connect(sandbox, { permission: allowOnce })
    await client.initialize()
    const session = await newSession(client, sandbox, [{ name: "everything", command: process.execPath, args: [everythingServer, "stdio"], env: [] }])
    fake.script([{ text: "Done." }])
    await client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "echo" }] })
    const offered = ((fake.requests[0]?.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((tool) => tool.function.name)
    expect(offered.filter((name) => name.startsWith("mcp__everything__")).length).toBeGreaterThan(0)
    expect(offered).not.toContain("mcp__everything__echo")
  })

  it("two client servers whose names fit to one are refused in one line", async () => {
    const { sandbox, client } = await setup()
    const error = await newSession(client, sandbox, [
      { name: "my server", command: process.execPath, args: [everythingServer, "stdio"], env: [] },
      { name: "my.server", command: process.execPath, args: [everythingServer, "stdio"], env: [] }
    ]).catch((caught: unknown) => caught)
    expect((error as Error).message).toContain('"my server" and "my.server" both become the server name "my_server"')
    expect((error as Error).message).not.toContain("\n")
  })
})

const until = async (condition: () => Promise<boolean>, ms = 15_000) => {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
