/**
 * Subagents through the compiled binary (issue 26): the `task` tool runs children against the
 * fake model, scripted per agent by a marker in each agent's system prompt.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { scriptByAgent, systemTextOf } from "../support/fake-llm/by-agent.ts"
import type { RecordedRequest } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"

const fakeServer = useFakeServers()

/** A workspace agent file whose prompt carries `marker`, so the fake model can tell its requests apart. */
const agentFile = (name: string, marker: string, fields: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  [`.crystal/agents/${name}.md`]: [
    "---",
    `name: ${name}`,
    `description: test agent ${name}`,
    ...Object.entries(fields).map(([key, value]) => `${key}: ${value}`),
    "---",
    `${marker}: you are the test agent ${name}.`,
    ""
  ].join("\n")
})

const toolNamesOf = (request: RecordedRequest | undefined): Array<string> =>
  ((request?.body as { tools?: Array<{ function?: { name?: string } }> } | undefined)?.tools ?? []).map((tool) => tool.function?.name ?? "")

const requestsOf = (requests: ReadonlyArray<RecordedRequest>, marker: string) => requests.filter((request) => systemTextOf(request).includes(marker))

/** The tool messages a request sends back, by call id. */
const toolMessages = (request: RecordedRequest | undefined): Record<string, string> => {
  const messages = (request?.body as { messages?: Array<{ role: string; tool_call_id?: string; content?: unknown }> } | undefined)?.messages ?? []
  return Object.fromEntries(messages.filter((message) => message.role === "tool").map((message) => [message.tool_call_id ?? "", String(message.content)]))
}

const run = (sandbox: Sandbox, args: ReadonlyArray<string>) => runCrystal(sandbox, ["run", "--format", "json", ...args], { timeoutMs: 60_000 })

describe("the task tool", () => {
  it("runs a child that uses tools; its result, its marked events and its stored transcript reach the parent", async () => {
    const sandbox = await makeSandbox({ "notes.txt": "the answer is 42\n", ...agentFile("finder", "FINDER-7", { tools: "[read]" }) })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    scriptByAgent(fake, {
      root: [
        { toolCalls: [{ id: "call_task1", name: "task", arguments: { description: "find the answer", prompt: "Read notes.txt and say the answer.", agent: "finder" } }] },
        { text: "The child found it." }
      ],
      agents: { "FINDER-7": [{ toolCalls: [{ id: "call_read1", name: "read", arguments: { path: "notes.txt" } }] }, { text: "notes.txt says the answer is 42." }] }
    })
    const result = await run(sandbox, ["--approval", "default", "what is the answer?"])
    expect(result.code, result.stderr).toBe(0)
    const events = jsonLines(result.stdout)
    const agent = [{ call_id: "call_task1", index: 1, name: "finder" }]
    const childRead = events.find((event) => event["type"] === "tool_result" && event["name"] === "read")
    expect(childRead?.["agent"]).toEqual(agent)
    expect(childRead?.["ok"]).toBe(true)
    // Every event of the child is marked, none of the parent's is.
    const childEvents = events.filter((event) => event["agent"] !== undefined)
    expect(childEvents.map((event) => event["type"])).toEqual(expect.arrayContaining(["tool_call", "approval", "tool_result", "text"]))
    expect(events.filter((event) => event["type"] === "tool_result" && event["name"] === "task").every((event) => event["agent"] === undefined)).toBe(true)
    const taskResult = events.find((event) => event["type"] === "tool_result" && event["name"] === "task")
    expect(taskResult?.["ok"]).toBe(true)
    expect(String(taskResult?.["output"])).toContain("notes.txt says the answer is 42.")
    expect(String(taskResult?.["output"])).toContain("Files changed: none")
    // The child's request: its own system prompt, only its tools, the prompt the parent wrote.
    const childRequests = requestsOf(fake.requests, "FINDER-7")
    expect(childRequests).toHaveLength(2)
    expect(toolNamesOf(childRequests[0])).toEqual(["read"])
    expect(toolMessages(childRequests[1])["call_read1"]).toContain("the answer is 42")
    const [file] = await sessionFiles(sandbox)
    const doc = (await readSession(file ?? "")) as unknown as { agents: Record<string, { agent: string; status: string; items: Array<Record<string, unknown>> }> }
    expect(doc.agents["call_task1"]?.agent).toBe("finder")
    expect(doc.agents["call_task1"]?.status).toBe("done")
    expect(doc.agents["call_task1"]?.items.map((item) => item["_tag"])).toEqual(["user", "assistant", "tool_result", "assistant"])
  })

  it("a child's write under --approval default is denied headless, and the child is told so", async () => {
    const sandbox = await makeSandbox({ "notes.txt": "original\n", ...agentFile("writer", "WRITER-3") })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    scriptByAgent(fake, {
      root: [{ toolCalls: [{ id: "call_task1", name: "task", arguments: { description: "rewrite", prompt: "Overwrite notes.txt.", agent: "writer" } }] }, { text: "ok" }],
      agents: { "WRITER-3": [{ toolCalls: [{ id: "call_w1", name: "write", arguments: { path: "notes.txt", content: "changed\n" } }] }, { text: "I could not write notes.txt: denied." }] }
    })
    const result = await run(sandbox, ["--approval", "default", "change the notes"])
    expect(result.code, result.stderr).toBe(0)
    expect(await fs.readFile(path.join(sandbox.workspace, "notes.txt"), "utf8")).toBe("original\n")
    const events = jsonLines(result.stdout)
    const approval = events.find((event) => event["type"] === "approval" && event["name"] === "write")
    expect(approval).toMatchObject({ outcome: "denied", by: "nobody to ask", agent: [{ call_id: "call_task1", index: 1, name: "writer" }] })
    // The child's next request carries the denial, not an output.
    const childRequests = requestsOf(fake.requests, "WRITER-3")
    expect(toolMessages(childRequests[1])["call_w1"]).toMatch(/^Denied: .*nobody can approve/)
    const taskResult = events.find((event) => event["type"] === "tool_result" && event["name"] === "task")
    expect(String(taskResult?.["output"])).toContain("Files changed: none")
  })

  it("a Plan parent's child is read-only: no write in its catalog, and none runs", async () => {
    const sandbox = await makeSandbox({ "notes.txt": "original\n", ...agentFile("worker", "WORKER-5", { mode: "work" }) })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    scriptByAgent(fake, {
      root: [{ toolCalls: [{ id: "call_task1", name: "task", arguments: { description: "try to write", prompt: "Overwrite notes.txt.", agent: "worker" } }] }, { text: "ok" }],
      agents: { "WORKER-5": [{ toolCalls: [{ id: "call_w1", name: "write", arguments: { path: "notes.txt", content: "changed\n" } }] }, { text: "No write tool." }] }
    })
    const result = await run(sandbox, ["--mode", "plan", "--approval", "full", "change the notes"])
    expect(result.code, result.stderr).toBe(0)
    expect(await fs.readFile(path.join(sandbox.workspace, "notes.txt"), "utf8")).toBe("original\n")
    const childRequests = requestsOf(fake.requests, "WORKER-5")
    expect(toolNamesOf(childRequests[0])).not.toContain("write")
    expect(toolNamesOf(childRequests[0])).not.toContain("edit")
    expect(toolNamesOf(childRequests[0])).not.toContain("bash")
    expect(toolMessages(childRequests[1])["call_w1"]).toContain("there is no tool named 'write' in plan mode")
  })

  it("an agent's tools narrow the parent's and never widen them; --disable-tool bash holds in children", async () => {
    const sandbox = await makeSandbox({
      ...agentFile("narrow", "NARROW-1", { tools: "[read, grep]" }),
      ...agentFile("wide", "WIDE-2", { tools: "[read, bash, bash_start, web_fetch]" })
    })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    scriptByAgent(fake, {
      root: [
        {
          toolCalls: [
            { id: "call_t1", name: "task", arguments: { description: "narrow", prompt: "look", agent: "narrow" } },
            { id: "call_t2", name: "task", arguments: { description: "wide", prompt: "run ls", agent: "wide" } }
          ]
        },
        { text: "ok" }
      ],
      agents: {
        "NARROW-1": [{ toolCalls: [{ id: "call_b1", name: "bash", arguments: { command: "echo from-narrow > narrow.txt" } }] }, { text: "no bash" }],
        "WIDE-2": [{ toolCalls: [{ id: "call_b2", name: "bash", arguments: { command: "echo from-wide > wide.txt" } }] }, { text: "no bash" }]
      }
    })
    const result = await run(sandbox, ["--approval", "full", "--disable-tool", "bash", "go"])
    expect(result.code, result.stderr).toBe(0)
    const narrow = requestsOf(fake.requests, "NARROW-1")
    const wide = requestsOf(fake.requests, "WIDE-2")
    expect(toolNamesOf(narrow[0]).sort()).toEqual(["grep", "read"])
    // `wide` names bash and web_fetch: the parent has no bash (disabled); web_fetch it has.
    expect(toolNamesOf(wide[0]).sort()).toEqual(["bash_start", "read", "web_fetch"].sort())
    expect(toolMessages(narrow[1])["call_b1"]).toContain("there is no tool named 'bash'")
    expect(toolMessages(wide[1])["call_b2"]).toContain("there is no tool named 'bash'")
    await expect(fs.stat(path.join(sandbox.workspace, "narrow.txt"))).rejects.toThrow()
    await expect(fs.stat(path.join(sandbox.workspace, "wide.txt"))).rejects.toThrow()
  })
})
