/**
 * The plan file through the compiled binary (issue 27): in Plan mode the plan tool writes the
 * session's plan file and nothing else can write anything, under every approval mode; the file is
 * never a path the model chose, never through a link; a plans.directory outside the workspace is
 * refused as config.json loads.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { approvalModes } from "../../src/approval/policy.ts"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import type { Reply } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { snapshotTree as snapshot } from "../support/tree-snapshot.ts"
import { makeFifo } from "../support/fifo.ts"
import { tempDir } from "../support/temp.ts"

const fakeServer = useFakeServers()

const project = { "src/math.js": "export const add = (a, b) => a - b\n" }
const plan = "# Fix add\n\n- [ ] change `-` to `+` in src/math.js\n- [ ] run the tests\n"


const sha = (text: string) => createHash("sha256").update(text).digest("hex")

const toolResults = (stdout: string) =>
  jsonLines(stdout).filter((event) => event["type"] === "tool_result").map((event) => ({ name: event["name"], ok: event["ok"], output: String(event["output"]) }))

const sessionId = (stdout: string): string => String(jsonLines(stdout).find((event) => event["type"] === "session")?.["id"])

/** The model tries every way to write, the plan tool with arguments naming other places among them. */
const attempts = (sandbox: Sandbox, outside: string): ReadonlyArray<Reply> => [
  {
    toolCalls: [
      { name: "plan", arguments: { text: plan, path: path.join(outside, "plan.md"), file: "../../escape.md", directory: outside } },
      { name: "write", arguments: { path: ".crystal/plans/other.md", content: "x" } },
      { name: "write", arguments: { path: path.join(sandbox.home, "plans", "other.md"), content: "x" } },
      { name: "edit", arguments: { path: "src/math.js", old_string: "a - b", new_string: "a + b" } },
      { name: "bash", arguments: { command: `echo pwned > src/math.js; touch ${outside}/bash.txt` } }
    ]
  },
  { text: "Here is the plan." }
]

describe("plan mode writes only the plan file", () => {
  it.each(approvalModes)("in the workspace's plans.directory, under --approval %s", async (approval) => {
    const sandbox = await makeSandbox(project)
    const outside = await tempDir("crystal-outside-")
    const before = await snapshot(sandbox.workspace)
    const homeBefore = await snapshot(sandbox.home)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { plans: { directory: ".crystal/plans" } })
    fake.script(attempts(sandbox, outside))
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "--approval", approval, "make a plan"])
    expect(result.code).toBe(0)
    const results = toolResults(result.stdout)
    expect(results.map((entry) => [entry.name, entry.ok])).toEqual([
      ["plan", approval !== "audit"],
      ["write", false],
      ["write", false],
      ["edit", false],
      ["bash", false]
    ])
    const id = sessionId(result.stdout)
    const written = approval === "audit" ? {} : { ".crystal": "dir", ".crystal/plans": "dir", [`.crystal/plans/${id}.md`]: sha(plan) }
    expect(await snapshot(sandbox.workspace)).toEqual({ ...before, ...written })
    expect(await fs.readdir(outside)).toEqual([])
    // Nothing in the home but what a run always writes (config, the session, its lock and history).
    const home = Object.keys(await snapshot(sandbox.home)).filter((name) => !(name in homeBefore))
    expect(home.filter((name) => name.startsWith("plans"))).toEqual([])
    if (approval !== "audit") expect(results[0]?.output).toBe(`The plan is saved as ${path.join(sandbox.workspace, ".crystal", "plans", `${id}.md`)} (2 steps: 2 pending, 0 in progress, 0 done).\n1. - [ ] change \`-\` to \`+\` in src/math.js\n2. - [ ] run the tests`)
  })

  it("in the home by default, owner-only, the workspace untouched", async () => {
    const sandbox = await makeSandbox(project)
    const outside = await tempDir("crystal-outside-")
    const before = await snapshot(sandbox.workspace)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script(attempts(sandbox, outside))
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "make a plan"])
    expect(result.code).toBe(0)
    const file = path.join(sandbox.home, "plans", `${sessionId(result.stdout)}.md`)
    expect(await fs.readFile(file, "utf8")).toBe(plan)
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600)
    expect(await fs.readdir(path.join(sandbox.home, "plans"))).toEqual([path.basename(file)])
    expect(await snapshot(sandbox.workspace)).toEqual(before)
    expect(await fs.readdir(outside)).toEqual([])
  })

  it("refuses a plans folder that is a symbolic link out of the workspace, writing nothing there", async () => {
    const sandbox = await makeSandbox(project)
    const outside = await tempDir("crystal-outside-")
    await fs.mkdir(path.join(sandbox.workspace, ".crystal"))
    await fs.symlink(outside, path.join(sandbox.workspace, ".crystal", "plans"))
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { plans: { directory: ".crystal/plans" } })
    fake.script([{ toolCalls: [{ name: "plan", arguments: { text: plan } }] }, { text: "done" }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "--approval", "full", "make a plan"])
    expect(result.code).toBe(0)
    const [planResult] = toolResults(result.stdout)
    expect(planResult?.ok).toBe(false)
    expect(planResult?.output).toContain(`${path.join(sandbox.workspace, ".crystal", "plans")} is a symbolic link`)
    expect(await fs.readdir(outside)).toEqual([])
  })

  it.each(["symbolic link", "FIFO"])("refuses a %s planted at the plan file's own path, neither following nor opening it", async (kind) => {
    const sandbox = await makeSandbox(project)
    const outside = await tempDir("crystal-outside-")
    const target = path.join(outside, "target.md")
    await fs.writeFile(target, "outside, untouched\n")
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { plans: { directory: ".crystal/plans" } })
    fake.script([
      { toolCalls: [{ name: "plan", arguments: { text: plan } }] },
      { text: "written" },
      { toolCalls: [{ name: "plan", arguments: { text: "# replaced\n- [ ] x\n" } }, { name: "plan", arguments: {} }] },
      { text: "done" }
    ])
    const first = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "make a plan"])
    const id = sessionId(first.stdout)
    const planFile = path.join(sandbox.workspace, ".crystal", "plans", `${id}.md`)
    await fs.rm(planFile)
    if (kind === "FIFO") makeFifo(planFile)
    else await fs.symlink(target, planFile)
    // A write or read that opened a FIFO would hang here: the run is killed after 30 s instead.
    const second = await runCrystal(sandbox, ["run", "--format", "json", "--resume", id, "--mode", "plan", "--approval", "full", "again"], { timeoutMs: 30_000 })
    expect(second.code).toBe(0)
    const [write, read] = toolResults(second.stdout)
    const reason = kind === "FIFO" ? "is a FIFO (named pipe), not a regular file" : "is a symbolic link"
    expect(write).toMatchObject({ name: "plan", ok: false, output: expect.stringContaining(`${planFile} ${reason}`) })
    expect(read).toMatchObject({ name: "plan", ok: false })
    expect(await fs.readFile(target, "utf8")).toBe("outside, untouched\n")
    expect(await fs.readdir(outside)).toEqual(["target.md"])
  })

  it.each([
    ["../plans", '"../plans" leads outside the workspace'],
    ["/tmp/plans", '"/tmp/plans" is not relative to the workspace']
  ])("refuses plans.directory %s as config.json loads, with one line naming the field", async (directory, problem) => {
    const sandbox = await makeSandbox(project)
    const fake = await fakeServer()
    const configFile = await writeLocalConfig(sandbox, fake.url, { plans: { directory } })
    const result = await runCrystal(sandbox, ["run", "--mode", "plan", "make a plan"])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(`crystal: ${configFile}: plans.directory: ${problem}; expected a folder inside the workspace, relative to it (e.g. ".crystal/plans")\n`)
    expect(fake.requests).toHaveLength(0)
  })
})
