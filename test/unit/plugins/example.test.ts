/**
 * The example plugin of docs/plugins.md and the README is real: the files in
 * docs/examples/plugins/house-rules load without a note, do what the docs say, and the docs show
 * them byte for byte.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { discoverPlugins } from "../../../src/plugins/discover.ts"
import { loadDiscoveredPlugins } from "../../../src/plugins/load.ts"
import { summarizePlugin } from "../../../src/plugins/describe.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const root = path.resolve(import.meta.dirname, "../../..")
const example = path.join(root, "docs", "examples", "plugins", "house-rules")
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8")

describe("the example plugin", () => {
  it("is shown whole in docs/plugins.md, and the README points to it", () => {
    const docs = read("docs/plugins.md")
    expect(docs).toContain("```js\n" + read("docs/examples/plugins/house-rules/index.mjs") + "```")
    expect(docs).toContain("```json\n" + read("docs/examples/plugins/house-rules/plugin.json") + "```")
    expect(read("README.md")).toContain("docs/plugins.md")
    expect(read("README.md")).toContain("docs/examples/plugins/house-rules")
  })

  it("loads without a note and does what the docs say", async () => {
    const home = await tempDir()
    fs.cpSync(example, path.join(home, "plugins", "house-rules"), { recursive: true })
    const result = await loadDiscoveredPlugins(discoverPlugins(home))
    expect(result.notes).toEqual([])
    const [loaded] = result.plugins
    if (loaded === undefined) throw new Error("not loaded")
    expect(loaded.name).toBe("house-rules")
    expect(summarizePlugin(loaded)).toEqual({ hooks: ["onSessionStarted", "onPrompt", "onToolCall"], rawHooks: [], placeholders: ["git_branch"] })
    const { hooks, placeholders } = loaded.plugin

    expect(await hooks?.onPrompt?.({ mode: "work" })).toBe("House rules: run `npm test` before you call a change done.")
    expect(await hooks?.onPrompt?.({ mode: "review" })).toBeUndefined()
    expect(await hooks?.onToolCall?.({ id: "c1", name: "bash", arguments: { command: "npm install" } })).toEqual({ arguments: { command: "npm ci" } })
    expect(await hooks?.onToolCall?.({ id: "c2", name: "bash", arguments: { command: "npm install left-pad" } })).toBeUndefined()
    expect(await hooks?.onToolCall?.({ id: "c3", name: "read", arguments: { path: "npm install" } })).toBeUndefined()

    const workspace = await tempDir()
    await writeTree(workspace, { ".git/HEAD": "ref: refs/heads/feature-x\n" })
    await hooks?.onSessionStarted?.({ workspace, sessionId: "s1", approval: "default" })
    expect(await placeholders?.["git_branch"]?.()).toBe("feature-x")
    await hooks?.onSessionStarted?.({ workspace: path.join(workspace, "none"), sessionId: "s2", approval: "default" })
    expect(await placeholders?.["git_branch"]?.()).toBeUndefined()
  })
})
