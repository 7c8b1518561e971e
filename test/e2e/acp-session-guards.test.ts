/**
 * `crystal acp` session guards: one prompt at a time (a cancel sent with the prompt cancels it), a
 * failed session/load leaves no half-closed session behind, and a session loads only in its own workspace.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { startAcp, type AcpClient } from "../support/acp-client.ts"

const fakeServer = useFakeServers()
const clients: Array<AcpClient> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

const setup = async () => {
  const sandbox = await makeSandbox({ "a.txt": "in A\n" })
  const fake = await fakeServer()
  await writeLocalConfig(sandbox, fake.url)
  const client = startAcp(sandbox)
  clients.push(client)
  await client.initialize()
  const session = await client.agent.request("session/new", { cwd: sandbox.workspace, mcpServers: [] })
  const prompt = (text: string) => client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text }] })
  return { sandbox, fake, client, session, prompt }
}

const errorOf = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    (value) => `no error: ${JSON.stringify(value)}`,
    (error: unknown) => String((error as { message?: unknown }).message ?? error)
  )

/** The binary over raw stdio, so that several requests can arrive in one chunk, as a fast client sends them. */
const rawAgent = (cwd: string, env: Record<string, string>) => {
  const child = spawn(crystalBinary, ["acp"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] })
  const answers = new Map<number, { result?: unknown; error?: { message: string } }>()
  let buffered = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk
    const lines = buffered.split("\n")
    buffered = lines.pop() ?? ""
    for (const line of lines) {
      const message = JSON.parse(line) as { id?: number; method?: string; result?: unknown; error?: { message: string } }
      if (typeof message.id === "number" && message.method === undefined) answers.set(message.id, message)
    }
  })
  const answer = async (id: number) => {
    while (!answers.has(id)) await new Promise((resolve) => setTimeout(resolve, 20))
    return answers.get(id) ?? {}
  }
  const send = (...messages: ReadonlyArray<object>) => child.stdin.write(messages.map((message) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`).join(""))
  const closed = new Promise((resolve) => child.on("close", resolve))
  return { send, answer, close: async () => (child.stdin.end(), await closed) }
}

describe("crystal acp session guards", () => {
  it("two prompts in one chunk: the second is refused, one model request", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "one", delayMs: 300 }, { text: "two", delayMs: 300 }])
    const agent = rawAgent(sandbox.workspace, sandbox.env)
    try {
      agent.send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })
      await agent.answer(1)
      agent.send({ id: 2, method: "session/new", params: { cwd: sandbox.workspace, mcpServers: [] } })
      const { sessionId } = (await agent.answer(2)).result as { sessionId: string }
      const prompt = (id: number, text: string) => ({ id, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text }] } })
      agent.send(prompt(3, "a"), prompt(4, "b"))
      expect((await agent.answer(3)).result).toEqual({ stopReason: "end_turn" })
      expect((await agent.answer(4)).error?.message).toContain("a prompt is already running in this session")
      expect(fake.requests).toHaveLength(1)
    } finally {
      await agent.close()
    }
  })

  it("a session/cancel in the same chunk as its prompt cancels it", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "answered", delayMs: 500 }])
    const agent = rawAgent(sandbox.workspace, sandbox.env)
    try {
      agent.send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })
      await agent.answer(1)
      agent.send({ id: 2, method: "session/new", params: { cwd: sandbox.workspace, mcpServers: [] } })
      const { sessionId } = (await agent.answer(2)).result as { sessionId: string }
      agent.send({ id: 3, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "a" }] } }, { method: "session/cancel", params: { sessionId } })
      expect((await agent.answer(3)).result).toEqual({ stopReason: "cancelled" })
    } finally {
      await agent.close()
    }
  })

  it("two prompts sent together: the second is refused, one model request", async () => {
    const run = await setup()
    run.fake.script([{ text: "one", delayMs: 300 }, { text: "two", delayMs: 300 }])
    const first = run.prompt("a")
    const second = errorOf(run.prompt("b"))
    expect((await first).stopReason).toBe("end_turn")
    expect(await second).toContain("a prompt is already running in this session")
    expect(run.fake.requests).toHaveLength(1)
  })

  it("a session/cancel sent right after the prompt cancels it", async () => {
    const run = await setup()
    run.fake.script([{ text: "answered", delayMs: 500 }])
    const prompt = run.prompt("a")
    await run.client.agent.notify("session/cancel", { sessionId: run.session.sessionId })
    expect((await prompt).stopReason).toBe("cancelled")
  })

  it("a failed session/load of an open session leaves no session that answers prompts", async () => {
    const run = await setup()
    const failed = await errorOf(run.client.agent.request("session/load", { sessionId: run.session.sessionId, cwd: path.join(run.sandbox.workspace, "missing"), mcpServers: [] }))
    expect(failed).toContain("missing")
    run.fake.script([{ text: "still here" }])
    expect(await errorOf(run.prompt("x"))).toMatch(/not found/i)
    expect(run.fake.requests).toHaveLength(0)
  })

  it("session/load from another workspace is refused, naming both", async () => {
    const run = await setup()
    run.fake.script([{ text: "hi" }])
    await run.prompt("a")
    const other = path.join(path.dirname(run.sandbox.workspace), "other")
    fs.mkdirSync(other)
    const refused = await errorOf(run.client.agent.request("session/load", { sessionId: run.session.sessionId, cwd: other, mcpServers: [] }))
    expect(refused).toContain(`session/load: session ${run.session.sessionId} belongs to ${fs.realpathSync(run.sandbox.workspace)}, not ${fs.realpathSync(other)}`)
    expect(refused.split("\n")).toHaveLength(1)
  })
})
