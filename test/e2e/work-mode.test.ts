/**
 * Work and plan mode through the compiled binary: real edits, real processes, real approvals.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import type { Reply } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { snapshotTree as snapshot } from "../support/tree-snapshot.ts"
import { tempDir } from "../support/temp.ts"

const fakeServer = useFakeServers()

const project = {
  "src/math.js": "export const add = (a, b) => a - b\n",
  "test.sh": "#!/bin/sh\ngrep -q 'a + b' src/math.js && echo 'tests pass' || { echo 'tests fail'; exit 1; }\n"
}

const toolResults = (stdout: string) =>
  jsonLines(stdout).filter((event) => event["type"] === "tool_result").map((event) => ({ name: event["name"], ok: event["ok"], output: String(event["output"]) }))


/** Processes whose command line contains `marker`, seen from outside through /proc. */
const processesWith = async (marker: string): Promise<Array<number>> => {
  const pids: Array<number> = []
  for (const name of await fs.readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue
    const cmdline = await fs.readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "")
    const state = await fs.readFile(`/proc/${name}/stat`, "utf8").catch(() => "")
    // A zombie has exited; only an init that does not reap keeps it listed.
    if (cmdline.includes(marker) && !/\) Z /.test(state)) pids.push(Number(name))
  }
  return pids
}

describe("work mode", () => {
  it("edits a file, runs the tests, starts a background server, reads its logs and stops it", async () => {
    const sandbox = await makeSandbox(project)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const marker = `crystal-e2e-server-${process.pid}-${Date.now()}`
    fake.script([
      { toolCalls: [{ name: "edit", arguments: { path: "src/math.js", old_string: "a - b", new_string: "a + b" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "sh test.sh" } }] },
      { toolCalls: [{ name: "bash_start", arguments: { command: `exec -a ${marker} sh -c 'echo listening; while true; do sleep 0.1; done'` } }] },
      { delayMs: 300, toolCalls: [{ name: "bash_logs", arguments: { id: "bg1" } }] },
      { toolCalls: [{ name: "bash_stop", arguments: { id: "bg1" } }] },
      { text: "Fixed add and checked it." }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "fix add"])
    expect(result.code).toBe(0)
    expect(await fs.readFile(path.join(sandbox.workspace, "src/math.js"), "utf8")).toBe("export const add = (a, b) => a + b\n")
    const results = toolResults(result.stdout)
    expect(results.map((entry) => [entry.name, entry.ok])).toEqual([
      ["edit", true],
      ["bash", true],
      ["bash_start", true],
      ["bash_logs", true],
      ["bash_stop", true]
    ])
    expect(results[1]?.output).toBe("exit 0\ntests pass")
    expect(results[2]?.output).toMatch(/^started bg1 \(pid \d+\)$/)
    expect(results[3]?.output).toContain("listening")
    expect(results[4]?.output).toMatch(/^bg1 stopped/)
    expect(await processesWith(marker)).toEqual([])
  })

  it("refuses asks it cannot put to anyone, and says which mode would allow them", async () => {
    const sandbox = await makeSandbox(project)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([
      { toolCalls: [{ name: "edit", arguments: { path: "src/math.js", old_string: "a - b", new_string: "a + b" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "ls src" } }] },
      { text: "Could not edit." }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "fix add"])
    expect(result.code).toBe(0)
    const [edit, ls] = toolResults(result.stdout)
    expect(edit).toMatchObject({ name: "edit", ok: false })
    expect(edit?.output).toMatch(/^Denied: edit src\/math\.js needs the operator's approval in the default approval mode.*--approval edit\./)
    expect(ls).toEqual({ name: "bash", ok: true, output: "exit 0\nmath.js" })
    expect(await fs.readFile(path.join(sandbox.workspace, "src/math.js"), "utf8")).toBe(project["src/math.js"])
  })

  it("kills every background process tree when crystal is terminated", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const marker = `crystal-e2e-tree-${process.pid}-${Date.now()}`
    fake.script([
      // A child and a grandchild, then a task that ignores SIGTERM.
      { toolCalls: [{ name: "bash_start", arguments: { command: `bash -c 'exec -a ${marker}-a sleep 1000' & exec -a ${marker}-b sleep 1000` } }] },
      { toolCalls: [{ name: "bash_start", arguments: { command: `trap '' TERM; exec -a ${marker}-c bash -c "trap '' TERM; sleep 1000 & wait"` } }] },
      { text: "never sent", delayMs: 30_000 }
    ])
    let pid = 0
    const running = runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "start things"], { onSpawn: (spawned) => (pid = spawned) })
    await fake.waitForRequest(3)
    const started = await processesWith(marker)
    expect(started.length).toBeGreaterThanOrEqual(3)
    process.kill(pid, "SIGTERM")
    const result = await running
    expect(result.code).toBe(143)
    expect(await processesWith(marker)).toEqual([])
  })
})

describe("plan mode cannot change the workspace", () => {
  const attempts = (outside: string): ReadonlyArray<Reply> => [
    {
      toolCalls: [
        { name: "edit", arguments: { path: "src/math.js", old_string: "a - b", new_string: "a + b" } },
        { name: "write", arguments: { path: "new.txt", content: "x" } },
        { name: "bash", arguments: { command: "echo pwned > src/math.js" } },
        { name: "bash_start", arguments: { command: "touch started.txt" } },
        { name: "write", arguments: { path: "escape/owned.txt", content: "x" } },
        { name: "todowrite", arguments: { todos: [{ content: "plan step", status: "pending", priority: "high" }] } },
        { name: "read", arguments: { path: "src/math.js" } }
      ]
    },
    { toolCalls: [{ name: "bash", arguments: { command: `rm -rf src; touch ${outside}/bash.txt` } }] },
    { text: "Here is the plan." }
  ]

  it.each(["plan", "default", "edit", "audit", "full"])("under --approval %s", async (approval) => {
    const sandbox: Sandbox = await makeSandbox(project)
    const outside = await tempDir("crystal-outside-")
    await fs.symlink(outside, path.join(sandbox.workspace, "escape"))
    const before = await snapshot(sandbox.workspace)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script(attempts(outside))
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "--approval", approval, "make a plan"])
    expect(result.code).toBe(0)
    expect(await snapshot(sandbox.workspace)).toEqual(before)
    expect(await fs.readdir(outside)).toEqual([])
    const offered = (fake.requests[0]?.body as { tools: Array<{ function: { name: string } }> }).tools.map((tool) => tool.function.name)
    expect(offered).toEqual(["read", "list", "tree", "glob", "grep", "search", "todowrite", "todoread", "plan", "question", "web_fetch", "task", "propose_plan"])
    const results = toolResults(result.stdout)
    expect(results.filter((entry) => entry.ok).map((entry) => entry.name)).toEqual(approval === "audit" ? [] : ["todowrite", "read"])
  })
})
