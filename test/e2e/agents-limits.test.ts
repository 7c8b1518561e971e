/**
 * A child is never wider than its parent (issue 26 review): its step limit, a mode switch made
 * while it runs, and what its own children wrote all answer to the parent.
 */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import { reject, startAcp, type AcpClient } from "../support/acp-client.ts"
import { scriptByAgent, systemTextOf } from "../support/fake-llm/by-agent.ts"
import type { RecordedRequest } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { makePng } from "../support/images.ts"

const fakeServer = useFakeServers()
const clients: Array<AcpClient> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

const agentFile = (name: string, marker: string, fields: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  [`.crystal/agents/${name}.md`]: ["---", `name: ${name}`, `description: test agent ${name}`, ...Object.entries(fields).map(([key, value]) => `${key}: ${value}`), "---", `${marker}: you are the test agent ${name}.`, ""].join("\n")
})

const requestsOf = (requests: ReadonlyArray<RecordedRequest>, marker: string) => requests.filter((request) => systemTextOf(request).includes(marker))

const taskOutputs = (stdout: string): Array<string> =>
  jsonLines(stdout)
    .filter((event) => event["type"] === "tool_result" && event["name"] === "task" && event["agent"] === undefined)
    .map((event) => String(event["output"]))

describe("a child never wider than its parent", () => {
  it("an agent's maxSteps cannot raise the session's step limit", async () => {
    const sandbox = await makeSandbox({ "notes.txt": "x\n", ...agentFile("looper", "LOOP-1", { maxSteps: "8" }) })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { maxSteps: 2 })
    const reads = Array.from({ length: 7 }, (_, n) => ({ toolCalls: [{ id: `call_r${n}`, name: "read", arguments: { path: "notes.txt" } }] }))
    scriptByAgent(fake, {
      root: [{ toolCalls: [{ id: "call_task1", name: "task", arguments: { description: "loop", prompt: "loop", agent: "looper" } }] }, { text: "done" }],
      agents: { "LOOP-1": [...reads, { text: "finished" }] }
    })
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "go"], { timeoutMs: 60_000 })
    expect(result.code, result.stderr).toBe(0)
    expect(requestsOf(fake.requests, "LOOP-1")).toHaveLength(2)
    expect(taskOutputs(result.stdout)[0]).toContain("stopped after 2 model requests")
  })

  it("the root's Files changed line names what a grandchild wrote", async () => {
    const sandbox = await makeSandbox({ ...agentFile("mid", "MID-1"), ...agentFile("leaf", "LEAF-1") })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    scriptByAgent(fake, {
      root: [{ toolCalls: [{ id: "call_t1", name: "task", arguments: { description: "d", prompt: "p", agent: "mid" } }] }, { text: "done" }],
      agents: {
        "MID-1": [{ toolCalls: [{ id: "call_t2", name: "task", arguments: { description: "d2", prompt: "p2", agent: "leaf" } }] }, { text: "mid done" }],
        "LEAF-1": [{ toolCalls: [{ id: "call_w", name: "write", arguments: { path: "new.txt", content: "hi\n" } }] }, { text: "leaf wrote new.txt" }]
      }
    })
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "go"], { timeoutMs: 60_000 })
    expect(result.code, result.stderr).toBe(0)
    expect(fs.existsSync(path.join(sandbox.workspace, "new.txt"))).toBe(true)
    expect(taskOutputs(result.stdout)).toEqual([expect.stringContaining("Files changed: new.txt")])
  })

  /** The session in full mode over ACP; the child `w` (marked `marker`) switches it to `modeId`, then asks to write. */
  const switchWhileChildRuns = async (marker: string, modeId: string) => {
    const sandbox = await makeSandbox(agentFile("w", marker))
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const client = startAcp(sandbox, { permission: reject })
    clients.push(client)
    await client.initialize()
    const session = (await client.agent.request("session/new", { cwd: sandbox.workspace, mcpServers: [] })) as { sessionId: string }
    await client.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "full" })
    let switched = false
    scriptByAgent(fake, {
      root: [{ toolCalls: [{ id: "call_t1", name: "task", arguments: { description: "d", prompt: "p", agent: "w" } }] }, { text: "done" }],
      agents: {
        [marker]: [
          (async () => {
            await client.agent.request("session/set_mode", { sessionId: session.sessionId, modeId })
            switched = true
            return { toolCalls: [{ id: "call_w", name: "write", arguments: { path: "child.txt", content: "hi\n" } }] }
          }) as never,
          { text: "child done" }
        ]
      }
    })
    await client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "go" }] })
    expect(switched).toBe(true)
    expect(fs.existsSync(path.join(sandbox.workspace, "child.txt"))).toBe(false)
    return fake
  }

  it("a switch to plan while a child runs reaches the child: its next write is refused", async () => {
    const fake = await switchWhileChildRuns("WRITER-9", "plan")
    // The child's next request offers no writing tool.
    const tools = ((requestsOf(fake.requests, "WRITER-9").at(-1)?.body as { tools?: Array<{ function?: { name?: string } }> }).tools ?? []).map((tool) => tool.function?.name)
    expect(tools).not.toContain("write")
  })

  it("a narrower approval mode chosen while a child runs reaches the child: its write is asked, and refused", async () => {
    await switchWhileChildRuns("WRITER-8", "default")
  })

  // Review 26 #6 feared reuse through the child's copied imageCount; tools take their numbers from
  // the session's own conversation (toolbox.context), so this guards that it stays so.
  it("an image number a child takes is not taken again by its parent", async () => {
    const sandbox = await makeSandbox(agentFile("viewer", "VIEWER-3"))
    await fsp.writeFile(path.join(sandbox.workspace, "a.png"), makePng(8, 8))
    await fsp.writeFile(path.join(sandbox.workspace, "b.png"), makePng(9, 9))
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, {
      providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { "test-model": { contextWindow: 32768, imageInput: true } } } }
    })
    scriptByAgent(fake, {
      root: [
        { toolCalls: [{ id: "call_t1", name: "task", arguments: { description: "d", prompt: "look at a.png", agent: "viewer" } }] },
        { toolCalls: [{ id: "call_vb", name: "view_image", arguments: { path: "b.png" } }] },
        { text: "done" }
      ],
      agents: { "VIEWER-3": [{ toolCalls: [{ id: "call_va", name: "view_image", arguments: { path: "a.png" } }] }, { text: "seen" }] }
    })
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "go"], { timeoutMs: 60_000 })
    expect(result.code, result.stderr).toBe(0)
    const viewed = jsonLines(result.stdout).filter((event) => event["type"] === "tool_result" && event["name"] === "view_image").map((event) => String(event["output"]))
    expect(viewed).toEqual([expect.stringMatching(/^\[Image #1\] a\.png/), expect.stringMatching(/^\[Image #2\] b\.png/)])
    const [file] = await sessionFiles(sandbox)
    expect(((await readSession(file ?? "")) as { imageCount?: number }).imageCount).toBe(2)
  })
})
