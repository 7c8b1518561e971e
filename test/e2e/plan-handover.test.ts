/**
 * From plan to work without a terminal (issue 27): `crystal run --mode plan` ends at propose_plan
 * and prints the plan and its path; `crystal run --plan FILE "go"` starts a Work turn whose first
 * request carries the plan, which becomes the session's plan file that the model then marks.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import type { FakeLlm } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { makeFifo } from "../support/fifo.ts"

const fakeServer = useFakeServers()

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}
const bodyOf = (fake: FakeLlm, index: number): ChatBody => fake.requests[index]?.body as ChatBody

const project = { "src/math.js": "export const add = (a, b) => a - b\n" }
const plan = "# Fix add\n\n- [ ] change `-` to `+` in src/math.js\n- [ ] run the tests\n"

describe("crystal run --mode plan", () => {
  it("ends the turn at propose_plan (the calls after it do not run) and prints the plan and its path", async () => {
    const sandbox = await makeSandbox(project)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([
      { toolCalls: [{ name: "plan", arguments: { text: plan } }] },
      { text: "The plan is ready.", toolCalls: [{ name: "propose_plan", arguments: {} }, { name: "read", arguments: { path: "src/math.js" } }] },
      { text: "never requested" }
    ])
    const result = await runCrystal(sandbox, ["run", "--mode", "plan", "plan the fix"])
    expect(result.code).toBe(0)
    expect(fake.requests).toHaveLength(2)
    const [file] = await sessionFiles(sandbox)
    const session = await readSession(file ?? "")
    const planPath = path.join(sandbox.home, "plans", `${String(session["id"])}.md`)
    expect(result.stdout).toBe(`The plan is ready.\n\nPlan: ${planPath}\n\n${plan}`)
    const results = session.items.filter((item) => item["_tag"] === "tool_result").map((item) => [item["name"], item["text"]])
    expect(results.slice(1)).toEqual([
      ["propose_plan", expect.stringMatching(/^Nobody can approve the plan in this non-interactive run/)],
      ["read", "not run: propose_plan ended the turn"]
    ])
  })

  it("prints a plan event in JSON, and the tool's refusal when there is no plan to propose", async () => {
    const sandbox = await makeSandbox(project)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([
      { toolCalls: [{ name: "propose_plan", arguments: {} }] },
      { toolCalls: [{ name: "plan", arguments: { text: plan } }] },
      { toolCalls: [{ name: "propose_plan", arguments: {} }] }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "plan the fix"])
    expect(result.code).toBe(0)
    const events = jsonLines(result.stdout)
    const id = String(events.find((event) => event["type"] === "session")?.["id"])
    const outputs = events.filter((event) => event["type"] === "tool_result").map((event) => [event["name"], event["ok"], event["output"]])
    expect(outputs[0]).toEqual(["propose_plan", false, "propose_plan: there is no plan to propose; write it with the plan tool first"])
    expect(events.filter((event) => event["type"] === "plan")).toEqual([{ type: "plan", path: path.join(sandbox.home, "plans", `${id}.md`), text: plan }])
    expect(events.at(-1)?.["type"]).toBe("done")
  })
})

describe("crystal run --plan FILE", () => {
  it("starts a Work turn whose first request carries the plan and the prompt; the plan becomes the session's and is marked", async () => {
    const sandbox = await makeSandbox(project)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const given = path.join(sandbox.workspace, "approved-plan.md")
    await fs.writeFile(given, plan)
    fake.script([
      { toolCalls: [{ name: "edit", arguments: { path: "src/math.js", old_string: "a - b", new_string: "a + b" } }, { name: "plan", arguments: { steps: [{ step: 1, status: "done" }] } }] },
      { text: "Step 1 done." }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "edit", "--plan", "approved-plan.md", "go"])
    expect(result.code).toBe(0)
    const id = String(jsonLines(result.stdout).find((event) => event["type"] === "session")?.["id"])
    const sessionPlan = path.join(sandbox.home, "plans", `${id}.md`)
    const first = bodyOf(fake, 0)
    expect(first.tools?.map((tool) => tool.function.name)).toContain("edit")
    const user = first.messages.filter((message) => message.role === "user").map((message) => JSON.stringify(message.content))
    expect(user).toHaveLength(1)
    expect(user[0]).toContain(JSON.stringify(`go\n\nCarry out the plan the operator approved. It is saved as ${sessionPlan}`).slice(1, -1))
    expect(user[0]).toContain(JSON.stringify(plan.trimEnd()).slice(1, -1))
    expect(await fs.readFile(sessionPlan, "utf8")).toBe(plan.replace("- [ ] change", "- [x] change"))
    // The file the operator gave is not the session's: it stays as it was.
    expect(await fs.readFile(given, "utf8")).toBe(plan)
    expect(await fs.readFile(path.join(sandbox.workspace, "src/math.js"), "utf8")).toBe("export const add = (a, b) => a + b\n")
  })

  it.each([
    [["--mode", "plan", "--plan", "p.md", "go"], "crystal: --plan starts a Work turn from the plan; it cannot go with --mode plan\n"],
    [["--plan", "missing.md", "go"], "crystal: --plan: missing.md does not exist\n"],
    [["--plan", "empty.md", "go"], "crystal: --plan: empty.md is empty\n"],
    [["--plan", "fifo.md", "go"], "crystal: --plan: fifo.md is a FIFO (named pipe), not a regular file\n"]
  ])("refuses %j with one line and no request", async (args, stderr) => {
    const sandbox = await makeSandbox({ ...project, "p.md": plan, "empty.md": " \n" })
    makeFifo(path.join(sandbox.workspace, "fifo.md"))
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const result = await runCrystal(sandbox, ["run", ...args], { timeoutMs: 30_000 })
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(stderr)
    expect(fake.requests).toHaveLength(0)
  })
})
