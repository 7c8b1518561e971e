import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { AgentDefinition } from "../../../src/agents/definition.ts"
import { findAgent, loadAgents, sourceLabel } from "../../../src/agents/load.ts"
import { providedToolNames } from "../../../src/tools/tool-names.ts"
import { makeFifo } from "../../support/fifo.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const setup = async (home: Record<string, string>, workspace: Record<string, string>) => {
  const root = await tempDir()
  const dirs = { home: path.join(root, "home"), workspace: path.join(root, "ws") }
  await writeTree(path.join(dirs.home, "agents"), { ".keep": "", ...home })
  await writeTree(path.join(dirs.workspace, ".crystal", "agents"), { ".keep": "", ...workspace })
  return { ...dirs, root, load: () => loadAgents({ ...dirs, knownToolNames: providedToolNames }) }
}

const summary = (agent: AgentDefinition) => [agent.name, agent.source === "builtin" ? "built-in" : agent.source.scope, agent.tools, agent.model, agent.mode, agent.maxSteps]

describe("loadAgents", () => {
  it("has general (the parent's tools) and explore (read-only, plan) built in", async () => {
    const { load } = await setup({}, {})
    const { agents, notes } = load()
    expect(notes).toEqual([])
    expect(agents.map(summary)).toEqual([
      ["explore", "built-in", ["read", "list", "tree", "glob", "grep", "search"], "inherit", "plan", undefined],
      ["general", "built-in", undefined, "inherit", undefined, undefined]
    ])
    for (const agent of agents) expect(agent.prompt.length).toBeGreaterThan(100)
  })

  it("reads every field from user and workspace files; workspace over user over built-in", async () => {
    const { load, workspace, home } = await setup(
      {
        "reviewer.md": "---\nname: reviewer\ndescription: Reviews diffs\ntools: read, grep, mcp__git__*\nmodel: local/small\nmode: plan\nmaxSteps: 12\n---\nYou review.\n",
        "explore.md": "---\ndescription: My explorer\ntools: [read]\n---\nExplore my way.\n"
      },
      {
        "reviewer.md": "---\ndescription: The team's reviewer\ntools:\n  - read\n  - \"grep\"\n---\nReview like the team.\n",
        "fixer.md": "---\ndescription: Fixes things\nmode: work\n---\nFix it.\n"
      }
    )
    const loaded = load()
    expect(loaded.notes).toEqual([])
    expect(loaded.agents.map(summary)).toEqual([
      ["explore", "user", ["read"], "inherit", undefined, undefined],
      ["fixer", "workspace", undefined, "inherit", "work", undefined],
      ["general", "built-in", undefined, "inherit", undefined, undefined],
      ["reviewer", "workspace", ["read", "grep"], "inherit", undefined, undefined]
    ])
    const reviewer = findAgent(loaded, "reviewer")
    expect(reviewer?.prompt).toBe("Review like the team.\n")
    expect(reviewer?.source).toEqual({ path: path.join(workspace, ".crystal", "agents", "reviewer.md"), scope: "workspace" })
    expect(loaded.replaced.get("reviewer")?.map(sourceLabel)).toEqual([path.join(home, "agents", "reviewer.md")])
    expect(loaded.replaced.get("explore")?.map(sourceLabel)).toEqual(["built-in"])
  })

  it("keeps the user's fields when nothing replaces them", async () => {
    const { load } = await setup({ "reviewer.md": "---\nname: reviewer\ndescription: Reviews diffs\ntools: read, grep, mcp__git__*\nmodel: local/small\nmode: plan\nmaxSteps: 12\n---\nYou review.\n" }, {})
    expect(findAgent(load(), "reviewer")).toMatchObject({ tools: ["read", "grep", "mcp__git__*"], model: "local/small", mode: "plan", maxSteps: 12, prompt: "You review.\n" })
  })

  it("names the agent by its front matter name, else by its file", async () => {
    const { load } = await setup({ "a-file.md": "---\nname: other-name\ndescription: d\n---\nP\n", "plain-name.md": "---\ndescription: d\n---\nP\n" }, {})
    expect(load().agents.map((agent) => agent.name)).toEqual(["explore", "general", "other-name", "plain-name"])
  })

  it("skips each bad file with one line naming the file and the field, and loads the others", async () => {
    const cases: Record<string, [string, string]> = {
      "no-front.md": ["Just a prompt.\n", "expected front matter at the top"],
      "no-description.md": ["---\nname: x1\n---\nP\n", `"description" is required`],
      "bad-name.md": ["---\nname: has space\ndescription: d\n---\nP\n", `"name" must be 1–64 letters`],
      "unknown.md": ["---\ndescription: d\ncolor: blue\n---\nP\n", `unknown front matter field "color" (expected name, description, tools, model, mode, maxSteps)`],
      "approval.md": ["---\ndescription: d\npermissionMode: bypassPermissions\n---\nP\n", `"permissionMode" is not allowed: a subagent never changes approval`],
      "disallowed.md": ["---\ndescription: d\ndisallowedTools: bash\n---\nP\n", `"disallowedTools" is not allowed`],
      "model.md": ["---\ndescription: d\nmodel: sonnet\n---\nP\n", `"model" must be inherit or provider/model (got "sonnet")`],
      "mode.md": ["---\ndescription: d\nmode: yolo\n---\nP\n", `"mode" must be plan or work (got "yolo")`],
      "steps.md": ["---\ndescription: d\nmaxSteps: 0\n---\nP\n", `"maxSteps" must be a whole number from 1 to 999999 (got "0")`],
      "steps2.md": ["---\ndescription: d\nmaxSteps: ten\n---\nP\n", `"maxSteps" must be a whole number`],
      "tools.md": ["---\ndescription: d\ntools: read; rm -rf\n---\nP\n", `"tools": expected tool names or patterns with *`],
      "tools-empty.md": ["---\ndescription: d\ntools:\n---\nP\n", `"tools": expected a list of tool names`],
      "tools-case.md": ["---\ndescription: d\ntools: Read, Grep\n---\nP\n", `"tools": no tool is named "Read"; Crystal's is "read"`],
      "empty-body.md": ["---\ndescription: d\n---\n\n", "the agent's prompt (after the front matter) is empty"],
      "escape.md": ["---\ndescription: d\x1b[2J\n---\nP\n", `"description" must not hold control characters`]
    }
    const files = Object.fromEntries(Object.entries(cases).map(([file, [text]]) => [file, text]))
    const { load, home } = await setup({ ...files, "good.md": "---\ndescription: fine\n---\nP\n" }, {})
    const { agents, notes } = load()
    expect(agents.map((agent) => agent.name)).toEqual(["explore", "general", "good"])
    expect(notes).toHaveLength(Object.keys(cases).length)
    for (const [file, [, expected]] of Object.entries(cases)) {
      const note = notes.find((line) => line.startsWith(`${path.join(home, "agents", file)}: `))
      expect(note, file).toContain(expected)
      expect(note, file).toMatch(/; agent skipped\.$/)
      expect(note, file).not.toContain("\n")
    }
  })

  it("accepts an empty list (no tools), a lone wildcard and quoted items", async () => {
    const { load } = await setup(
      { "none.md": "---\ndescription: d\ntools: []\n---\nP\n", "all.md": "---\ndescription: d\ntools: \"*\"\n---\nP\n", "q.md": "---\ndescription: d\ntools: ['read', \"mcp__x__*\"]\n---\nP\n" },
      {}
    )
    const loaded = load()
    expect(loaded.notes).toEqual([])
    expect(findAgent(loaded, "none")?.tools).toEqual([])
    expect(findAgent(loaded, "all")?.tools).toEqual(["*"])
    expect(findAgent(loaded, "q")?.tools).toEqual(["read", "mcp__x__*"])
  })

  it("keeps the first of two files in one folder that claim one name, and a refused file hides nothing", async () => {
    const { load, workspace, home } = await setup(
      { "helper.md": "---\ndescription: user helper\n---\nP\n" },
      { "a.md": "---\nname: twin\ndescription: first\n---\nP\n", "b.md": "---\nname: twin\ndescription: second\n---\nP\n", "helper.md": "---\ndescription: broken\nmode: x\n---\nP\n" }
    )
    const loaded = load()
    expect(findAgent(loaded, "twin")?.description).toBe("first")
    expect(findAgent(loaded, "helper")?.source).toEqual({ path: path.join(home, "agents", "helper.md"), scope: "user" })
    const dir = path.join(workspace, ".crystal", "agents")
    expect(loaded.notes).toEqual([
      `${path.join(dir, "b.md")}: agent "twin" is already defined by ${path.join(dir, "a.md")} in the same folder; agent skipped.`,
      `${path.join(dir, "helper.md")}: "mode" must be plan or work (got "x"); agent skipped.`
    ])
  })

  it("reads files only inside their root: a link out of the workspace and a FIFO are refused with a note", async () => {
    const { load, workspace, root } = await setup({}, {})
    const dir = path.join(workspace, ".crystal", "agents")
    await fs.writeFile(path.join(root, "outside.md"), "---\ndescription: from outside\n---\nsecret prompt\n")
    await fs.symlink(path.join(root, "outside.md"), path.join(dir, "linked.md"))
    await makeFifo(path.join(dir, "pipe.md"))
    const loaded = load()
    expect(loaded.agents.map((agent) => agent.name)).toEqual(["explore", "general"])
    expect(loaded.notes).toEqual([
      `${path.join(dir, "linked.md")} is a symbolic link to a file outside the workspace; it was not read; agent skipped.`,
      `${path.join(dir, "pipe.md")} is a FIFO (named pipe), not a regular file; it was not read; agent skipped.`
    ])
  })

  it("reads ~/.crystal/agents once, as the user's, when the workspace is the home directory", async () => {
    const root = await tempDir()
    await writeTree(path.join(root, ".crystal", "agents"), { "mine.md": "---\ndescription: d\nmodel: local/big\n---\nP\n" })
    const loaded = loadAgents({ home: path.join(root, ".crystal"), workspace: root })
    expect(findAgent(loaded, "mine")?.source).toEqual({ path: path.join(root, ".crystal", "agents", "mine.md"), scope: "user" })
    expect(loaded.replaced.size).toBe(0)
    expect(loaded.notes).toEqual([])
  })

  it("is fine with neither folder present", async () => {
    const root = await tempDir()
    const loaded = loadAgents({ home: path.join(root, "nohome"), workspace: path.join(root, "nows") })
    expect(loaded.agents.map((agent) => agent.name)).toEqual(["explore", "general"])
    expect(loaded.notes).toEqual([])
  })
})
