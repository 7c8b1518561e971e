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
import { writeTree } from "../support/temp.ts"
import { killProcessesWith, processesWith, waitForProcesses } from "../support/processes.ts"

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

const threeTasks = (prefix: string) => ({
  toolCalls: [1, 2, 3].map((n) => ({ id: `call_t${n}`, name: "task", arguments: { description: `part ${n}`, prompt: `do part ${n}`, agent: `${prefix}${n}` } }))
})

/** Three agents, each running one shell command then answering. */
const threeAgents = (prefix: string, command: (n: number) => string) => ({
  files: Object.assign({}, ...[1, 2, 3].map((n) => agentFile(`${prefix}${n}`, `${prefix.toUpperCase()}-MARK-${n}`))) as Record<string, string>,
  scripts: Object.fromEntries(
    [1, 2, 3].map((n) => [
      `${prefix.toUpperCase()}-MARK-${n}`,
      [{ toolCalls: [{ id: `call_sh${n}`, name: "bash", arguments: { command: command(n) } }] }, { text: `part ${n} done` }]
    ])
  )
})

describe("several task calls in one step", () => {
  it("run at the same time: every child has asked and run its tool before any of them answers; results stay in call order", async () => {
    const agents = threeAgents("par", (n) => `sleep 0.4; echo part-${n}`)
    const sandbox = await makeSandbox(agents.files)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    scriptByAgent(fake, { root: [threeTasks("par"), { text: "all done" }], agents: agents.scripts })
    const result = await run(sandbox, ["--approval", "full", "go"])
    expect(result.code, result.stderr).toBe(0)
    const firsts = [1, 2, 3].map((n) => requestsOf(fake.requests, `PAR-MARK-${n}`)[0]?.index ?? Infinity)
    const lasts = [1, 2, 3].map((n) => requestsOf(fake.requests, `PAR-MARK-${n}`)[1]?.index ?? -1)
    // One after the other, child 1 would answer (its 2nd request) before child 2 first asks.
    expect(Math.max(...firsts)).toBeLessThan(Math.min(...lasts))
    const final = fake.requests.at(-1)
    expect(Object.keys(toolMessages(final))).toEqual(["call_t1", "call_t2", "call_t3"])
    expect(Object.values(toolMessages(final)).map((text) => text.split("\n")[0])).toEqual(["part 1 done", "part 2 done", "part 3 done"])
    // Usage: the turn's includes the children's (root 2 requests + 6 children's).
    const done = jsonLines(result.stdout).find((event) => event["type"] === "done") as { usage: { input_tokens: number } } | undefined
    const [file] = await sessionFiles(sandbox)
    const doc = (await readSession(file ?? "")) as unknown as { usage: { inputTokens: number }; agents: Record<string, { usage: { inputTokens: number } }> }
    const childInput = Object.values(doc.agents).reduce((sum, child) => sum + child.usage.inputTokens, 0)
    expect(childInput).toBeGreaterThan(0)
    expect(done?.usage.input_tokens).toBe(doc.usage.inputTokens)
  })

  it("at most agents.maxParallel at once", async () => {
    const agents = threeAgents("cap", (n) => `sleep 0.3; echo part-${n}`)
    const sandbox = await makeSandbox(agents.files)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { agents: { maxParallel: 2 } })
    scriptByAgent(fake, { root: [threeTasks("cap"), { text: "all done" }], agents: agents.scripts })
    const result = await run(sandbox, ["--approval", "full", "go"])
    expect(result.code, result.stderr).toBe(0)
    const firsts = [1, 2, 3].map((n) => requestsOf(fake.requests, `CAP-MARK-${n}`)[0]?.index ?? Infinity)
    const lasts = [1, 2, 3].map((n) => requestsOf(fake.requests, `CAP-MARK-${n}`)[1]?.index ?? -1)
    // The third starts only once one of the first two has answered.
    expect(firsts[2]).toBeGreaterThan(Math.min(lasts[0] ?? -1, lasts[1] ?? -1))
    expect(firsts[1]).toBeLessThan(lasts[0] ?? -1)
  })

  it("Ctrl+C mid-children cancels every child and leaves no process; each child's transcript is kept", async () => {
    const marker = `crystal-agents-e2e-${process.pid}-${Date.now()}`
    const agents = threeAgents("cut", (n) => `exec -a ${marker}-${n} sleep 30`)
    const sandbox = await makeSandbox(agents.files)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    scriptByAgent(fake, { root: [threeTasks("cut"), { text: "never" }], agents: agents.scripts })
    try {
      let pid = 0
      const running = runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "go"], { onSpawn: (spawned) => (pid = spawned), timeoutMs: 60_000 })
      expect(await waitForProcesses(marker, (n) => n === 3)).toHaveLength(3)
      process.kill(pid, "SIGINT")
      const result = await running
      expect(result.code).toBe(130)
      expect(await processesWith(marker)).toEqual([])
      const [file] = await sessionFiles(sandbox)
      const doc = (await readSession(file ?? "")) as unknown as { items: Array<Record<string, unknown>>; agents: Record<string, { status: string; items: Array<Record<string, unknown>> }> }
      expect(Object.values(doc.agents).map((child) => child.status)).toEqual(["cancelled", "cancelled", "cancelled"])
      for (const child of Object.values(doc.agents)) expect(child.items.at(-1)).toMatchObject({ _tag: "tool_result", isError: true })
      // The parent's transcript stays valid: every task call has a result, in call order.
      expect(doc.items.filter((item) => item["_tag"] === "tool_result").map((item) => item["callId"])).toEqual(["call_t1", "call_t2", "call_t3"])
    } finally {
      await killProcessesWith(marker)
    }
  })
})

describe("a session with children", () => {
  it("resumed, keeps their transcripts, and sessions show/export include them", async () => {
    const sandbox = await makeSandbox({ "notes.txt": "x\n", ...agentFile("finder", "FINDER-9", { tools: "[read]" }) })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    scriptByAgent(fake, {
      root: [{ toolCalls: [{ id: "call_task1", name: "task", arguments: { description: "look", prompt: "read notes.txt", agent: "finder" } }] }, { text: "first done" }, { text: "second done" }],
      agents: { "FINDER-9": [{ toolCalls: [{ id: "call_r1", name: "read", arguments: { path: "notes.txt" } }] }, { text: "CHILD-FINAL-ANSWER" }] }
    })
    const first = await run(sandbox, ["--approval", "default", "look"])
    expect(first.code, first.stderr).toBe(0)
    const id = String(jsonLines(first.stdout)[0]?.["id"])
    const second = await run(sandbox, ["--resume", id, "and again"])
    expect(second.code, second.stderr).toBe(0)
    const [file] = await sessionFiles(sandbox)
    const doc = (await readSession(file ?? "")) as unknown as { items: Array<Record<string, unknown>>; agents: Record<string, { items: Array<Record<string, unknown>> }> }
    expect(doc.items.filter((item) => item["_tag"] === "user")).toHaveLength(2)
    expect(doc.agents["call_task1"]?.items.map((item) => item["_tag"])).toEqual(["user", "assistant", "tool_result", "assistant"])
    const shown = await runCrystal(sandbox, ["sessions", "show", id])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain("CHILD-FINAL-ANSWER")
    const exported = await runCrystal(sandbox, ["sessions", "export", "--output", "-", id])
    expect(exported.code, exported.stderr).toBe(0)
    const session = (JSON.parse(exported.stdout) as { session: { agents: Record<string, { agent: string; items: Array<{ _tag: string; text?: string }> }> } }).session
    expect(session.agents["call_task1"]?.agent).toBe("finder")
    expect(session.agents["call_task1"]?.items.at(-1)).toMatchObject({ _tag: "assistant", text: "CHILD-FINAL-ANSWER" })
  })
})


describe("plugins and children", () => {
  it("onTurnStarted and onTurnFinished see a child's turn with its agent path; the root's has none", async () => {
    const sandbox = await makeSandbox({ "notes.txt": "x\n", ...agentFile("finder", "FINDER-4", { tools: "[read]" }) })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const log = path.join(sandbox.home, "turns.log")
    await writeTree(sandbox.home, {
      "plugins/watch/plugin.json": '{ "entry": "index.mjs", "enabled": true }',
      "plugins/watch/index.mjs": `import * as fs from "node:fs"
const note = (kind, t) => fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ kind, text: t.text, agent: t.agent ?? null, stop: t.stopReason ?? null }) + "\\n")
export default { hooks: { onTurnStarted: (t) => note("start", t), onTurnFinished: (t) => note("end", t) } }`
    })
    scriptByAgent(fake, {
      root: [{ toolCalls: [{ id: "call_task1", name: "task", arguments: { description: "look", prompt: "read notes.txt", agent: "finder" } }] }, { text: "done" }],
      agents: { "FINDER-4": [{ text: "nothing to read" }] }
    })
    const result = await run(sandbox, ["look"])
    expect(result.code, result.stderr).toBe(0)
    const turns = (await fs.readFile(log, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
    const agent = [{ callId: "call_task1", index: 1, name: "finder" }]
    expect(turns).toEqual([
      { kind: "start", text: "look", agent: null, stop: null },
      { kind: "start", text: "read notes.txt", agent, stop: null },
      { kind: "end", text: "read notes.txt", agent, stop: "answered" },
      { kind: "end", text: "look", agent: null, stop: "answered" }
    ])
  })
})

describe("an agent naming its own model", () => {
  it("runs its child on that model (trusted), while the session's model stays the parent's", async () => {
    const sandbox = await makeSandbox(agentFile("other", "OTHER-6", { model: "local/other-model" }))
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, {
      providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { "test-model": { contextWindow: 32768 }, "other-model": { contextWindow: 32768 } } } }
    })
    scriptByAgent(fake, {
      root: [{ toolCalls: [{ id: "call_task1", name: "task", arguments: { description: "ask", prompt: "say hi", agent: "other" } }] }, { text: "done" }],
      agents: { "OTHER-6": [{ text: "hi from the other model" }] }
    })
    const result = await run(sandbox, ["--trust-project-tools", "hello"])
    expect(result.code, result.stderr).toBe(0)
    const models = fake.requests.map((request) => [systemTextOf(request).includes("OTHER-6") ? "child" : "root", (request.body as { model?: string }).model])
    expect(models).toEqual([["root", "test-model"], ["child", "other-model"], ["root", "test-model"]])
  })
})
