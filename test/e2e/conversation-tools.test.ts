/** Todos, questions and skills through the compiled binary. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"

const fakeServer = useFakeServers()

type Body = { messages: Array<{ role: string; content?: unknown }>; tools?: Array<{ function: { name: string } }> }

describe("conversation tools in crystal run", () => {
  it("keeps the todo list in the session", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const todos = [
      { content: "read the code", status: "completed", priority: "high" },
      { content: "write the fix", status: "in_progress", priority: "high" }
    ]
    fake.script([{ toolCalls: [{ name: "todowrite", arguments: { todos } }] }, { text: "Planned." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "plan the fix"])
    expect(result.code).toBe(0)
    const [file] = await sessionFiles(sandbox)
    expect((await readSession(file ?? ""))["todos"]).toEqual(todos)
  })

  it("fails the question tool with instructions when nobody can answer", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const questions = [{ header: "DB", question: "Which database?", options: [{ label: "Postgres", description: "d" }, { label: "SQLite", description: "d" }] }]
    fake.script([{ toolCalls: [{ name: "question", arguments: { questions } }] }, { text: "Going with Postgres." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "set up the db"])
    expect(result.code).toBe(0)
    const toolResult = jsonLines(result.stdout).find((event) => event["type"] === "tool_result")
    expect(toolResult).toMatchObject({ name: "question", ok: false })
    expect(String(toolResult?.["output"])).toMatch(/^No one can answer questions in this non-interactive run/)
  })

  it("offers discovered skills and loads one", async () => {
    const sandbox = await makeSandbox({
      ".crystal/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: How this project deploys\n---\nRun ./deploy.sh staging first.\n"
    })
    await fs.mkdir(path.join(sandbox.home, "skills", "broken"), { recursive: true })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ toolCalls: [{ name: "skill", arguments: { name: "deploy" } }] }, { text: "Staging first." }])
    const result = await runCrystal(sandbox, ["run", "how do I deploy?"])
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/broken has no readable SKILL\.md; skipped\./)
    const first = fake.requests[0]?.body as Body
    expect(String(first.messages[0]?.content)).toContain("- deploy: How this project deploys")
    expect(first.tools?.map((tool) => tool.function.name)).toContain("skill")
    const second = fake.requests[1]?.body as Body
    expect(String(second.messages.at(-1)?.content)).toContain("Run ./deploy.sh staging first.")
  })

  it("offers no skill tool when config.json says skills: false", async () => {
    const sandbox = await makeSandbox({ ".crystal/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: d\n---\nbody\n" })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { skills: false })
    fake.script([{ text: "ok" }])
    expect((await runCrystal(sandbox, ["run", "hi"])).code).toBe(0)
    const first = fake.requests[0]?.body as Body
    expect(first.tools?.map((tool) => tool.function.name)).not.toContain("skill")
    expect(String(first.messages[0]?.content)).not.toContain("deploy")
  })
})
