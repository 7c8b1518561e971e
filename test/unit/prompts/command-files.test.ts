import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { discoverCommands, parseCommandLine } from "../../../src/prompts/command-files.ts"
import { makeFifo } from "../../support/fifo.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const builtins = ["help", "model", "init", "quit"]

const setup = async (home: Record<string, string>, workspace: Record<string, string>) => {
  const root = await tempDir()
  const dirs = { home: path.join(root, "home"), workspace: path.join(root, "ws") }
  await writeTree(path.join(dirs.home, "commands"), { ".keep": "", ...home })
  await writeTree(path.join(dirs.workspace, ".crystal", "commands"), { ".keep": "", ...workspace })
  return { ...dirs, root, list: () => discoverCommands(dirs.home, dirs.workspace, builtins) }
}

describe("commands from files", () => {
  it("reads home and workspace commands, names subfolders group:name, and the workspace wins a clash", async () => {
    const { list, workspace } = await setup(
      {
        "review.md": "---\ndescription: Home review\n---\nReview $ARGUMENTS\n",
        "git/commit.md": "---\ndescription: Commit\nargument-hint: MESSAGE\nmode: work\nmodel: local/other\n---\nCommit with $1\n",
        "plain.md": "Say hello."
      },
      { "review.md": "---\ndescription: Workspace review\nmode: plan\n---\nReview $1 carefully\n" }
    )
    const { commands, notes } = list()
    expect(notes).toEqual([])
    expect(commands.map((command) => [command.name, command.description, command.source, command.usage, command.mode, command.model])).toEqual([
      ["git:commit", "Commit", "home", "MESSAGE", "work", "local/other"],
      ["plain", "home command (plain.md)", "home", undefined, undefined, undefined],
      ["review", "Workspace review", "workspace", "ARGUMENTS", "plan", undefined]
    ])
    expect(commands.find((command) => command.name === "review")?.file).toBe(path.join(workspace, ".crystal", "commands", "review.md"))
    expect(commands.find((command) => command.name === "plain")?.body).toBe("Say hello.")
  })

  it("refuses a built-in's name, an agent, approval fields, unknown fields and bad values, each with a one-line note naming the file", async () => {
    const { list } = await setup(
      {
        "help.md": "Hijack help",
        "quit.md": "Hijack an alias",
        "delegate.md": "---\nagent: reviewer\n---\nGo\n",
        "yolo.md": "---\nallowed-tools: Bash(rm:*)\n---\nrm it\n",
        "odd.md": "---\ncolour: red\n---\nx\n",
        "badmode.md": "---\nmode: auto\n---\nx\n",
        "badmodel.md": "---\nmodel: gpt\n---\nx\n",
        "empty.md": "---\ndescription: nothing\n---\n\n"
      },
      {}
    )
    const { commands, notes, refused } = list()
    expect(commands).toEqual([])
    expect([...refused.keys()].sort()).toEqual(["badmode", "badmodel", "delegate", "empty", "help", "odd", "quit", "yolo"])
    for (const note of notes) expect(note).not.toContain("\n")
    expect(refused.get("help")).toMatch(/help\.md: \/help is a built-in command; rename the file/)
    expect(refused.get("quit")).toMatch(/\/quit is a built-in command/)
    expect(refused.get("delegate")).toMatch(/"agent" names a subagent, and a command cannot run as one/)
    expect(refused.get("yolo")).toMatch(/"allowed-tools" is not allowed: a command never changes approval/)
    expect(refused.get("odd")).toMatch(/unknown front matter field "colour"/)
    expect(refused.get("badmode")).toMatch(/"mode" must be plan or work \(got "auto"\)/)
    expect(refused.get("badmodel")).toMatch(/"model" must be provider\/model/)
    expect(refused.get("empty")).toMatch(/prompt \(after the front matter\) is empty/)
  })

  it("a refused workspace file hides the home command of its name; a good one replaces a refused home one", async () => {
    const { list } = await setup({ "deploy.md": "Deploy", "fix.md": "---\nagent: x\n---\nFix" }, { "deploy.md": "---\nagent: y\n---\nDeploy", "fix.md": "Fix it" })
    const { commands, refused } = list()
    expect(commands.map((command) => [command.name, command.source])).toEqual([["fix", "workspace"]])
    expect([...refused.keys()]).toEqual(["deploy"])
  })

  it("reads command files through the confined read: a FIFO, a link out of the workspace and an oversized file are refused, never opened", async () => {
    const { list, workspace, root } = await setup({}, { "ok.md": "fine" })
    const dir = path.join(workspace, ".crystal", "commands")
    makeFifo(path.join(dir, "pipe.md"))
    await fs.writeFile(path.join(root, "secret.txt"), "outside the workspace")
    await fs.symlink(path.join(root, "secret.txt"), path.join(dir, "leak.md"))
    await fs.writeFile(path.join(dir, "huge.md"), "x".repeat(1024 * 1024 + 1))
    const { commands, refused } = list()
    expect(commands.map((command) => command.name)).toEqual(["ok"])
    expect(refused.get("pipe")).toMatch(/FIFO/)
    expect(refused.get("leak")).toMatch(/leak\.md is a symbolic link to a file outside the workspace; it was not read/)
    expect(refused.get("huge")).toMatch(/huge\.md is larger than 1 MiB/)
  })

  it("skips bad names and folders deeper than group:sub:name with a note", async () => {
    const { list } = await setup({ "has space.md": "x", "a/b/c/d.md": "too deep", "a/b/ok.md": "fine", "notes.txt": "not a command" }, {})
    const { commands, notes } = list()
    expect(commands.map((command) => command.name)).toEqual(["a:b:ok"])
    expect(notes.some((note) => note.includes("has space.md"))).toBe(true)
    expect(notes.some((note) => /a\/b\/c: command folders go at most 2 deep/.test(note))).toBe(true)
  })

  it("no folders: no commands, no notes", async () => {
    const root = await tempDir()
    expect(discoverCommands(path.join(root, "h"), path.join(root, "w"), builtins)).toMatchObject({ commands: [], notes: [] })
  })

  it("parses a command line", () => {
    expect(parseCommandLine("/git:commit  fix the \"thing\"\n")).toEqual({ name: "git:commit", args: 'fix the "thing"' })
    expect(parseCommandLine("hello /x")).toBeUndefined()
  })
})
