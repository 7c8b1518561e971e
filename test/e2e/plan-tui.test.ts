/**
 * The plan in the terminal (issue 27): a resumed session shows its plan with /plan.
 */
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const plan = "# Fix add\n\n- [x] change `-` to `+` in src/math.js\n- [~] run the tests\n- [ ] tell the operator\n"

describe.runIf(tmuxAvailable())("the plan in a terminal", () => {
  it("a resumed session shows its plan with /plan", async () => {
    const sandbox: Sandbox = await makeSandbox({})
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ toolCalls: [{ name: "plan", arguments: { text: plan } }] }, { text: "Plan saved." }])
    const first = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "plan it"])
    expect(first.code).toBe(0)
    const id = String(jsonLines(first.stdout).find((event) => event["type"] === "session")?.["id"])
    const terminal = openTerminal([crystalBinary, "--resume", id], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(/approval default · local\/test-model/)
    terminal.type("/plan")
    terminal.press("Enter")
    const planPath = path.join(sandbox.home, "plans", `${id}.md`)
    const screen = await terminal.waitFor(/tell the operator/)
    expect(screen).toContain(`plan: ${planPath}\n# Fix add\n\n- [x] change \`-\` to \`+\` in src/math.js\n- [~] run the tests\n- [ ] tell the operator`)
  })
})
