/** `crystal acp`: Crystal's modes as session modes, and session/load of a saved session. */
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { messageText, startAcp, updatesOf, type AcpClient } from "../support/acp-client.ts"

const fakeServer = useFakeServers()
const clients: Array<AcpClient> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

type Body = { messages: Array<{ role: string; content?: unknown }>; tools?: Array<{ function: { name: string } }> }

const setup = async () => {
  const sandbox = await makeSandbox({ "a.txt": "alpha\n" })
  const fake = await fakeServer()
  await writeLocalConfig(sandbox, fake.url)
  const connect = async () => {
    const client = startAcp(sandbox)
    clients.push(client)
    await client.initialize()
    return client
  }
  return { sandbox, fake, connect }
}

describe("crystal acp sessions", () => {
  it("session/set_mode switches Plan and Work and the approval mode; an unknown mode is refused by name", async () => {
    const { sandbox, fake, connect } = await setup()
    const client = await connect()
    const session = await client.agent.request("session/new", { cwd: sandbox.workspace, mcpServers: [] })
    await client.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "plan" })
    fake.script([{ text: "Planned." }])
    await client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "plan it" }] })
    const planTools = (fake.requests[0]?.body as Body).tools?.map((tool) => tool.function.name) ?? []
    expect(planTools).toContain("read")
    expect(planTools).not.toContain("edit")
    await client.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "audit" })
    fake.script([{ text: "Working." }])
    await client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "do it" }] })
    expect((fake.requests[1]?.body as Body).tools?.map((tool) => tool.function.name)).toContain("edit")
    await expect(client.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "yolo" })).rejects.toThrow(/unknown mode 'yolo'/)
    // The choice is the session's: loaded again, it is still audit.
    await client.close()
    const again = await connect()
    const loaded = await again.agent.request("session/load", { sessionId: session.sessionId, cwd: sandbox.workspace, mcpServers: [] })
    expect(loaded.modes?.currentModeId).toBe("audit")
  })

  it("session/load replays a saved session's conversation and goes on with it", async () => {
    const { sandbox, fake, connect } = await setup()
    const first = await connect()
    const session = await first.agent.request("session/new", { cwd: sandbox.workspace, mcpServers: [] })
    fake.script([{ reasoning: "Look first.", toolCalls: [{ id: "read-1", name: "read", arguments: { path: "a.txt" } }] }, { text: "It says alpha." }])
    await first.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "what is in a.txt?" }] })
    expect(await first.close()).toEqual({ code: 0, signal: null })

    const second = await connect()
    const loaded = await second.agent.request("session/load", { sessionId: session.sessionId, cwd: sandbox.workspace, mcpServers: [] })
    expect(loaded.modes?.currentModeId).toBe("default")
    expect(messageText(second, session.sessionId, "user_message_chunk")).toBe("what is in a.txt?")
    expect(messageText(second, session.sessionId, "agent_thought_chunk")).toBe("Look first.")
    expect(messageText(second, session.sessionId, "agent_message_chunk")).toBe("It says alpha.")
    expect(updatesOf(second, session.sessionId, "tool_call")).toMatchObject([{ toolCallId: "read-1", kind: "read", title: "Read a.txt" }])
    expect(updatesOf(second, session.sessionId, "tool_call_update")).toMatchObject([{ toolCallId: "read-1", status: "completed" }])
    const order = second.updates.map((notification) => notification.update.sessionUpdate)
    expect(order).toEqual(["user_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "agent_message_chunk"])

    fake.script([{ text: "Still alpha." }])
    const answer = await second.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "and now?" }] })
    expect(answer.stopReason).toBe("end_turn")
    const sent = JSON.stringify((fake.requests.at(-1)?.body as Body).messages)
    expect(sent).toContain("what is in a.txt?")
    expect(sent).toContain("It says alpha.")
    expect(sent).toContain("and now?")
  })

  it("session/load of a session that does not exist is a one-line error", async () => {
    const { sandbox, connect } = await setup()
    const client = await connect()
    const error = await client.agent.request("session/load", { sessionId: "no-such-session", cwd: sandbox.workspace, mcpServers: [] }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toMatch(/^session\/load: .*no-such-session/)
    expect((error as Error).message).not.toContain("\n")
    await expect(client.agent.request("session/prompt", { sessionId: "no-such-session", prompt: [{ type: "text", text: "hi" }] })).rejects.toThrow()
  })
})
