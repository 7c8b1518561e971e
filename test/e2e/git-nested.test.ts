/**
 * Nested repositories through the compiled binary (issue 23): `git status` in a workspace with
 * submodules runs unasked while no repository git enters runs a program, and is refused by
 * `crystal run` (nobody to ask) under `--approval plan` and `default` once a submodule's config
 * or a gitlinked nested repository's own config sets core.fsmonitor. The planted program would
 * print a marker line (which the tool output would show, even inside the read-only OS sandbox)
 * and create a marker file outside the workspace; neither may appear.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"
import { git, makeRepo, makeSuperproject } from "../support/git-repos.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const MARK = "PLANTED-RAN"

/** One `crystal run` whose model calls `bash` with `command` once; its approval and tool result events. */
const runOnce = async (sandbox: Sandbox, fake: FakeLlm, approval: "plan" | "default", command: string) => {
  fake.script([{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "done" }])
  const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", approval, "check the tree"])
  expect(result.code, result.stderr).toBe(0)
  const events = jsonLines(result.stdout)
  return {
    approval: events.find((event) => event["type"] === "approval"),
    output: events
      .filter((event) => event["type"] === "tool_result")
      .map((event) => String(event["output"]))
      .join("\n")
  }
}

describe("git status among nested repositories, through crystal run", () => {
  it("runs unasked in a clean checkout with submodules; refused once a submodule or a gitlinked repository plants core.fsmonitor", async () => {
    const sandbox = await makeSandbox()
    const root = path.dirname(sandbox.workspace)
    makeSuperproject(path.join(root, "sources"), sandbox.workspace, 3, { nested: true })
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url)
    const marker = path.join(root, "marker")
    const plant = `echo ${MARK} >&2; touch ${marker}; false`

    for (const approval of ["plan", "default"] as const) {
      const clean = await runOnce(sandbox, fake, approval, "git status")
      expect(clean.approval).toMatchObject({ outcome: "allowed", by: "policy", risk: "low", authority: "read" })
      expect(clean.output).toContain("nothing to commit, working tree clean")
    }

    // A submodule's config, in the superproject's .git/modules/NAME/config.
    const moduleConfig = path.join(sandbox.workspace, ".git", "modules", "sub2", "config")
    const original = fs.readFileSync(moduleConfig, "utf8")
    fs.appendFileSync(moduleConfig, `[core]\n\tfsmonitor = ${plant}\n`)
    for (const approval of ["plan", "default"] as const) {
      const planted = await runOnce(sandbox, fake, approval, "git status")
      // plan refuses by its policy; default would ask, and crystal run has nobody to ask.
      expect(planted.approval).toMatchObject({ outcome: "denied", by: approval === "plan" ? "policy" : "nobody to ask", authority: "execute" })
      expect(String(planted.approval?.["summary"])).toContain(".git/modules/sub2 sets core.fsmonitor")
      expect(planted.output).not.toContain(MARK)
      expect(fs.existsSync(marker)).toBe(false)
    }
    fs.writeFileSync(moduleConfig, original)

    // A nested repository committed as a gitlink, without a .gitmodules entry, with its own .git/config.
    const nested = makeRepo(path.join(sandbox.workspace, "nested"), { "n.txt": "n\n" })
    git(sandbox.workspace, "add", "nested")
    git(sandbox.workspace, "commit", "-q", "-m", "gitlink")
    fs.appendFileSync(path.join(nested, ".git", "config"), `[core]\n\tfsmonitor = ${plant}\n`)
    for (const approval of ["plan", "default"] as const) {
      const planted = await runOnce(sandbox, fake, approval, "git status")
      expect(planted.approval).toMatchObject({ outcome: "denied", by: approval === "plan" ? "policy" : "nobody to ask", authority: "execute" })
      expect(String(planted.approval?.["summary"])).toContain("nested/.git sets core.fsmonitor")
      expect(planted.output).not.toContain(MARK)
      expect(fs.existsSync(marker)).toBe(false)
    }
  })
})
