/**
 * /agents in the interactive UI of the compiled binary (tmux), and the trust question for a
 * workspace agent that names its own model: asked at start with the tool sets and servers; a yes
 * is remembered and /agents shows the model as trusted.
 */
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"
import { writeTree } from "../support/temp.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const ready = /approval default · local\/test-model/

describe.runIf(tmuxAvailable())("/agents in a terminal session", () => {
  it("asks to trust a workspace agent's model; /agents lists the agents and /agents NAME shows one", async () => {
    const sandbox: Sandbox = await makeSandbox()
    await writeTree(path.join(sandbox.workspace, ".crystal", "agents"), {
      "reviewer.md": "---\ndescription: Reviews the diff\ntools: read, grep\nmodel: local/test-model\n---\nReview carefully.\nLine two.\n",
      "bad.md": "---\ndescription: d\ncolor: red\n---\nP\n"
    })
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    const open = () => {
      const terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
      cleanups.push(() => terminal.close())
      return terminal
    }

    const first = open()
    const question = await first.waitFor(/Trust them\?/)
    expect(question).toContain("supplies agents that pick their own model:")
    expect(question).toContain("agent reviewer: runs on local/test-model instead of the session's model")
    // No: the agent stays, on the session's model.
    first.press("Enter")
    await first.waitFor(ready)
    first.type("/agents")
    first.press("Enter")
    const listed = await first.waitFor(/\/agents NAME shows one/)
    expect(listed).toMatch(/explore\s+built-in\s+A fast read-only agent/)
    expect(listed).toMatch(/general\s+built-in/)
    expect(listed).toMatch(/reviewer\s+workspace\s+Reviews the diff/)
    expect(listed).toContain("tools: read, grep · model: local/test-model (not trusted")
    expect(listed).toContain(`bad.md: unknown front matter field "color"`)
    first.press("C-d")
    await first.waitFor(/EXIT=/)

    const second = open()
    await second.waitFor(/Trust them\?/)
    second.press("Left", "Enter")
    await second.waitFor(ready)
    second.type("/agents reviewer")
    second.press("Enter")
    const shown = await second.waitFor(/Line two\./)
    expect(shown).toMatch(/Model\s+local\/test-model\n/)
    expect(shown).toMatch(/Tools\s+read, grep/)
    expect(shown).toContain("Review carefully.")
    second.type("/agents nobody")
    second.press("Enter")
    await second.waitFor(/no agent 'nobody' \(found: explore, general, reviewer\)/)
    second.press("C-d")
    await second.waitFor(/EXIT=/)

    // Trusted and unchanged: no question.
    const third = open()
    await third.waitFor(ready)
    expect(third.screen()).not.toContain("Trust them?")
  })
})
