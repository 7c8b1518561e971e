/**
 * A grandchild's approval in the interactive UI (issue 26): at depth 2 the ask reaches the person
 * through the root's dialog, which names the agent path; their answer is the one the grandchild gets.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { scriptByAgent } from "../support/fake-llm/by-agent.ts"
import { startFakeLlm } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const agent = (name: string, marker: string) => `---\nname: ${name}\ndescription: test agent ${name}\n---\n${marker}: you are ${name}.\n`

describe.runIf(tmuxAvailable())("a subagent's approval in a terminal session", () => {
  it("at depth 2 the dialog reaches the person, names the path, and the person's answer holds", async () => {
    const sandbox = await makeSandbox({
      "notes.txt": "original\n",
      ".crystal/agents/outer.md": agent("outer", "OUTER-MARK"),
      ".crystal/agents/inner.md": agent("inner", "INNER-MARK")
    })
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    scriptByAgent(fake, {
      root: [{ toolCalls: [{ id: "call_outer", name: "task", arguments: { description: "delegate", prompt: "hand it on", agent: "outer" } }] }, { text: "ROOT-DONE" }],
      agents: {
        "OUTER-MARK": [{ toolCalls: [{ id: "call_inner", name: "task", arguments: { description: "write it", prompt: "write notes.txt", agent: "inner" } }] }, { text: "outer done" }],
        "INNER-MARK": [{ toolCalls: [{ id: "call_write", name: "write", arguments: { path: "notes.txt", content: "written by inner\n" } }] }, { text: "inner wrote it" }]
      }
    })
    const terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(/approval default · local\/test-model/)
    terminal.type("go")
    terminal.press("Enter")
    const dialog = await terminal.waitFor(/Allow write for task 1 › outer › task 1 › inner\?/)
    expect(dialog).toContain("asked by subagent task 1 › outer › task 1 › inner")
    terminal.press("Enter")
    const done = await terminal.waitFor(/ROOT-DONE/)
    expect(done).toContain("⎿ task 1 › outer · 2 steps · 1 tool call")
    expect(await fs.readFile(path.join(sandbox.workspace, "notes.txt"), "utf8")).toBe("written by inner\n")
    terminal.press("C-d")
    await terminal.waitFor(/EXIT=/)
  })
})
