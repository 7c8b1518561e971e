/**
 * `crystal acp` session guards: one prompt at a time (a cancel sent with the prompt cancels it), a
 * failed session/load leaves no half-closed session behind, and a session loads only in its own workspace.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, writeLocalConfig } from "../support/crystal.ts"
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

describe("crystal acp session guards", () => {
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
