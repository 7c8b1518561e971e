/**
 * The workspace trust question and /tools in the interactive UI of the compiled binary (tmux).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable, type Terminal } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const ready = /approval default · local\/test-model/

const wordsSet = {
  runner: "exec",
  tools: [{ name: "word_count", description: "Count the words of a file.", parameters: { type: "object", properties: { path: { type: "string" } } }, command: ["python3", "./count.py"], approval: "always" }]
}

describe.runIf(tmuxAvailable())("tool sets in a terminal", () => {
  const open = (sandbox: Sandbox): Terminal => {
    const terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    return terminal
  }

  it("asks once to trust the workspace's tool sets, naming them and their commands; remembers the answer; /tools lists source and approval", async () => {
    const sandbox = await makeSandbox({ "notes.txt": "a b c\n" })
    const setDir = path.join(sandbox.workspace, ".crystal", "tools", "words")
    await fs.mkdir(setDir, { recursive: true })
    await fs.writeFile(path.join(setDir, "tools.json"), JSON.stringify(wordsSet, null, 2))
    await fs.writeFile(path.join(setDir, "count.py"), "print('3')\n")
    const homeSet = path.join(sandbox.home, "tools", "mine")
    await fs.mkdir(homeSet, { recursive: true })
    await fs.writeFile(path.join(homeSet, "tools.json"), JSON.stringify({ tools: [{ name: "home_tool", description: "A home tool.", command: ["true"], approval: "always" }] }))
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)

    const terminal = open(sandbox)
    const question = await terminal.waitFor(/Trust them\?/)
    expect(question).toContain("supplies programs the model could run:")
    expect(question).toContain("tool set words: each tool runs its program in")
    expect(question).toContain("      word_count → python3 ./count.py")
    terminal.press("Left", "Enter")
    await terminal.waitFor(ready)
    terminal.type("/tools")
    terminal.press("Enter")
    const listing = await terminal.waitFor(/approval word: home author, project host/)
    expect(listing).toMatch(/word_count\s+project:words\s+policy/)
    expect(listing).toMatch(/home_tool\s+home:mine\s+always/)
    expect(listing).toMatch(/bash_stop\s+built-in\s+policy/)
    // External tools come after every built-in one.
    expect(listing.indexOf("bash_stop")).toBeLessThan(listing.indexOf("home_tool"))
    terminal.type("/tools project author")
    terminal.press("Enter")
    await terminal.waitFor(/project tool sets: their "approval": "always" asks before every call/)
    terminal.type("/tools")
    terminal.press("Enter")
    await terminal.waitFor(/word_count\s+project:words\s+always/)
    terminal.type("/tools disable words")
    terminal.press("Enter")
    await terminal.waitFor(/project tool set words disabled/)
    expect(JSON.parse(await fs.readFile(path.join(setDir, "tools.json"), "utf8"))).toMatchObject({ enabled: false })
    terminal.press("C-d")

    const stored = JSON.parse(await fs.readFile(path.join(sandbox.home, "trust.json"), "utf8")) as { trusted: Array<{ name: string }> }
    expect(stored.trusted.map((entry) => entry.name)).toEqual(["words"])

    // Enabled again, the same content: no question this time.
    const text = (await fs.readFile(path.join(setDir, "tools.json"), "utf8")).replace('"enabled": false', '"enabled": true')
    await fs.writeFile(path.join(setDir, "tools.json"), text)
    // The manifest's bytes changed (a field was added and flipped), so it is asked again once; after that, never.
    const again = open(sandbox)
    await again.waitFor(/Trust them\?/)
    again.press("Left", "Enter")
    await again.waitFor(ready)
    again.press("C-d")
    const third = open(sandbox)
    await third.waitFor(ready)
    expect(third.screen()).not.toContain("Trust them?")
  })
})
