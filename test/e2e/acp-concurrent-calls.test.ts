/**
 * `crystal acp` with a task call running beside another call of the same agent: each approval
 * names the call that asks, and each result lands on its own call (review of issue 28 item 1).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { scriptByAgent } from "../support/fake-llm/by-agent.ts"
import { allowOnce, startAcp, type AcpClient } from "../support/acp-client.ts"

const fakeServer = useFakeServers()
const clients: Array<AcpClient> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

const writeAgent = (home: string, name: string, marker: string) => {
  fs.mkdirSync(path.join(home, "agents"), { recursive: true })
  fs.writeFileSync(path.join(home, "agents", `${name}.md`), ["---", `name: ${name}`, `description: test agent ${name}`, "tools: [bash]", "---", `${marker}: you are ${name}.`, ""].join("\n"))
}

describe("crystal acp: a task beside another call", () => {
  it("the root's bash permission names the bash call, the child's names its own, and every call completes", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    writeAgent(sandbox.home, "helper", "HELPER-MARK")
    scriptByAgent(fake, {
      root: [
        {
          toolCalls: [
            { id: "call_task", name: "task", arguments: { description: "help", prompt: "help", agent: "helper" } },
            { id: "call_bash", name: "bash", arguments: { command: "sleep 0.5; touch root.txt" } }
          ]
        },
        { text: "root done" }
      ],
      agents: { "HELPER-MARK": [{ toolCalls: [{ id: "call_child", name: "bash", arguments: { command: "touch child.txt" } }] }, { text: "child done" }] }
    })
    const client = startAcp(sandbox, { permission: allowOnce })
    clients.push(client)
    await client.initialize()
    const session = await client.agent.request("session/new", { cwd: sandbox.workspace, mcpServers: [] })
    const result = await client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "go" }] })
    expect(result.stopReason).toBe("end_turn")
    expect(fs.existsSync(path.join(sandbox.workspace, "root.txt"))).toBe(true)
    expect(fs.existsSync(path.join(sandbox.workspace, "child.txt"))).toBe(true)

    const asked = new Map(client.permissions.map((request) => [String((request.toolCall.rawInput as { command?: string }).command), request.toolCall.toolCallId]))
    expect(asked.get("sleep 0.5; touch root.txt")).toBe("call_bash")
    expect(asked.get("touch child.txt")).toBe("call_task/call_child")

    const last = new Map<string, string | null | undefined>()
    for (const notification of client.updates) {
      const update = notification.update
      if (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") {
        if (update.status !== undefined) last.set(update.toolCallId, update.status)
      }
    }
    expect(Object.fromEntries(last)).toEqual({ call_task: "completed", call_bash: "completed", "call_task/call_child": "completed" })
  }, 40_000)
})
