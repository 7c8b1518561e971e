/**
 * The plan across compaction and sessions (issue 27): a compaction keeps the plan's path and its
 * steps' lines byte for byte, outside the model's summary, and the next request shows them; a
 * resumed session still has its plan.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown }>
}

// Statuses of all three kinds, odd markers, indentation, trailing spaces and non-ASCII text: kept byte for byte.
const plan = [
  "# Ship the parser",
  "",
  "- [x] write the tokenizer (`src/lex.ts`)  ",
  "  * [~] port the grammar — ünïcödé stays",
  "1. [ ] remove the old parser",
  "- [ ] run `npm test`",
  ""
].join("\n")
const stepLines = plan.split("\n").filter((line) => /\[[ ~x]\]/.test(line))

describe("the plan across compaction", () => {
  it("keeps the path and the step lines byte-exact, and the request after the compaction shows them", async () => {
    const sandbox = await makeSandbox()
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url, { compaction: { keepRecentTokens: 0 } })
    // 30,000 of 32,768 tokens is over the default 85%: the continued run compacts before its request.
    fake.script([
      { toolCalls: [{ name: "plan", arguments: { text: plan.replace("- [x] write", "- [ ] write").replace("[~] port", "[ ] port") } }] },
      { toolCalls: [{ name: "plan", arguments: { steps: [{ step: 1, status: "done" }, { step: 2, status: "in_progress" }] } }] },
      { text: "Plan written.", usage: { inputTokens: 30_000, outputTokens: 100 } },
      { text: "SUMMARY: a paraphrase that loses the plan." },
      { text: "Carrying on." }
    ])
    const first = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "plan it"])
    expect(first.code).toBe(0)
    const id = String(jsonLines(first.stdout).find((event) => event["type"] === "session")?.["id"])
    const planPath = path.join(sandbox.home, "plans", `${id}.md`)
    expect(await fs.readFile(planPath, "utf8")).toBe(plan)
    const second = await runCrystal(sandbox, ["run", "--continue", "--format", "json", "go on"])
    expect(second.code).toBe(0)
    expect(jsonLines(second.stdout).some((event) => event["type"] === "note" && String(event["text"]).startsWith("Compacted the conversation"))).toBe(true)
    const [file] = await sessionFiles(sandbox)
    const saved = await readSession(file ?? "")
    const record = saved.items.find((item) => item["_tag"] === "compaction")
    expect(record?.["plan"]).toEqual({ path: planPath, steps: stepLines })
    const after = fake.requests[4]?.body as ChatBody
    const context = String(after.messages[1]?.content)
    expect(context).toContain("SUMMARY: a paraphrase that loses the plan.")
    expect(context).toContain(`The session's plan file is ${planPath} (the plan tool shows it whole and marks its steps). Its steps when the summary was written, verbatim:\n${stepLines.join("\n")}`)
  })
})

describe("the plan across sessions", () => {
  it("a resumed session has its plan: the plan tool reads it, and Plan mode prints it again", async () => {
    const sandbox = await makeSandbox()
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url)
    fake.script([
      { toolCalls: [{ name: "plan", arguments: { text: plan } }] },
      { text: "Written." },
      { toolCalls: [{ name: "plan", arguments: {} }] },
      { text: "Read it." }
    ])
    const first = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "plan it"])
    const id = String(jsonLines(first.stdout).find((event) => event["type"] === "session")?.["id"])
    const second = await runCrystal(sandbox, ["run", "--resume", id, "--format", "json", "what is the plan?"])
    expect(second.code).toBe(0)
    const events = jsonLines(second.stdout)
    const read = events.find((event) => event["type"] === "tool_result")
    expect(read?.["ok"]).toBe(true)
    expect(String(read?.["output"]).endsWith(`\n\n${plan}`)).toBe(true)
    // The resumed session is in plan mode still, so the run ends by printing the plan.
    expect(events.filter((event) => event["type"] === "plan")).toEqual([{ type: "plan", path: path.join(sandbox.home, "plans", `${id}.md`), text: plan }])
  })
})
