/**
 * Plugins in the interactive UI (tmux): the raw-hook notice at start, `/plugins` with each
 * plugin's hooks and the notes its hooks caused during the session.
 */
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm } from "../support/fake-llm/server.ts"
import { writeTree } from "../support/temp.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

describe.runIf(tmuxAvailable())("plugins in a terminal", () => {
  it("says which plugin registered a raw hook, and /plugins lists hooks, raw hooks, placeholders and the notes hooks caused", async () => {
    const sandbox = await makeSandbox({ "README.md": "# hello\n" })
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    await writeTree(sandbox.home, {
      "plugins/acme/plugin.json": '{ "entry": "index.mjs" }',
      "plugins/acme/index.mjs": `export default {
  name: "Acme",
  hooks: { onUserMessage: () => ({ text: "" }) },
  rawHooks: { rewritePrompt: () => undefined },
  placeholders: { acme_env: () => "staging" }
}`,
      "plugins/broken/plugin.json": '{ "entry": "index.mjs", "enabled": "yes" }'
    })
    const terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    const start = await terminal.waitFor(/approval default · local\/test-model/)
    expect(start).toContain("Plugin 'Acme' registered a raw hook.")
    expect(start).toMatch(/plugins\/broken\/plugin\.json.*enabled/)
    fake.script([{ text: "fine" }, { text: "A title" }])
    terminal.type("hello there")
    terminal.press("Enter")
    await terminal.waitFor(/fine/)
    terminal.type("/plugins")
    terminal.press("Enter")
    const listing = await terminal.waitFor(/Note: Plugin 'Acme': onUserMessage result skipped/)
    expect(listing).toMatch(/Plugin 'Acme'\n\s+Folder\s+acme/)
    expect(listing).toMatch(/Hooks\s+onUserMessage/)
    expect(listing).toMatch(/Raw hooks\s+rewritePrompt \(privileged/)
    expect(listing).toMatch(/Placeholders\s+\{\{acme_env\}\}/)
    expect(listing).toMatch(/Skipped: .*plugins\/broken\/plugin\.json/)
  })
})
