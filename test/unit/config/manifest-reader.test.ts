/**
 * The one manifest reader (src/config/manifest-reader.ts) and the files that go through it. The
 * depth cases are attacks from a hostile repository or home: a manifest nested far deeper than any
 * real one overflowed the stack of whatever walked it recursively (the syntax locator, the
 * parameter-schema check of tools.json, the trust hash of mcp.json) and ended Crystal with a stack
 * trace; now it is one note naming the file.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { firstProblem, listManifestFolders, maxJsonDepth, parseJsonObject, readManifestText } from "../../../src/config/manifest-reader.ts"
import { discoverToolSets } from "../../../src/external-tools/discover.ts"
import { crystalHomeRoot, workspaceRoot } from "../../../src/files/confined-read.ts"
import { readWorkspaceServers } from "../../../src/mcp/workspace-servers.ts"
import { readPluginManifest } from "../../../src/plugins/manifest.ts"
import { readManifest } from "../../../src/prompts/manifest.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

/** Valid JSON: an object whose `deep` field nests `levels` arrays. */
const deepValid = (levels: number, fields = ""): string => `{${fields}"deep": ${"[".repeat(levels)}${"]".repeat(levels)}}`
/** Broken JSON that opens `levels` arrays and never closes them. */
const deepBroken = (levels: number): string => `{"deep": ${"[".repeat(levels)}`

describe("parseJsonObject", () => {
  it.each([
    ['{"a": 1}', "Object"],
    ['\uFEFF{"a": 1}', "Object"],
    ["[]", "expected a JSON object at the top level"],
    ["null", "expected a JSON object at the top level"],
    ['{"a": tru}', 'not valid JSON at line 1, column 7: unexpected "tru}"'],
    ["", "not valid JSON at line 1, column 1: unexpected end of file"],
    [deepValid(maxJsonDepth - 1), "Object"],
    [deepValid(maxJsonDepth), `nests deeper than ${maxJsonDepth} levels`],
    [deepBroken(100_000), `nests deeper than ${maxJsonDepth} levels`]
  ])("case %#", (text, expected) => {
    const parsed = parseJsonObject(text)
    expect(parsed._tag === "Object" ? "Object" : parsed.problem).toBe(expected)
  })

  it("says the first problem and how many more there are", () => {
    expect(firstProblem(["a: bad"])).toBe("a: bad")
    expect(firstProblem(["a: bad", "b: bad"])).toBe("a: bad (and 1 more problem)")
    expect(firstProblem(["a: bad", "b: bad", "c: bad"])).toBe("a: bad (and 2 more problems)")
  })

  it("reads a manifest inside its root, and refuses one that leads out", async () => {
    const root = await tempDir("crystal-manifest-")
    await writeTree(root, { "ws/ok.json": "{}", "outside.json": "{}" })
    const ws = path.join(root, "ws")
    expect(readManifestText(path.join(ws, "ok.json"), workspaceRoot(ws))).toEqual({ _tag: "Text", text: "{}" })
    expect(readManifestText(path.join(ws, "none.json"), workspaceRoot(ws))).toEqual({ _tag: "Missing" })
    expect(readManifestText(path.join(ws, "..", "outside.json"), workspaceRoot(ws))._tag).toBe("Refused")
    expect(readManifestText(path.join(root, "outside.json"), "links followed")).toEqual({ _tag: "Text", text: "{}" })
  })
})

describe("listManifestFolders", () => {
  it("lists the folders by name (a link to one counts), passes over hidden entries and files, and marks bad names", async () => {
    const root = await tempDir("crystal-folders-")
    await writeTree(root, { "sets/b/x": "", "sets/a/x": "", "sets/.hidden/x": "", "sets/file.json": "{}", "sets/9bad/x": "", "elsewhere/x": "" })
    fs.symlinkSync(path.join(root, "elsewhere"), path.join(root, "sets", "linked"))
    const listed = listManifestFolders(path.join(root, "sets"), (name) => /^[a-z]/.test(name))
    expect("folders" in listed && listed.folders.map((folder) => [folder.name, folder.validName])).toEqual([
      ["9bad", false],
      ["a", true],
      ["b", true],
      ["linked", true]
    ])
    expect(listManifestFolders(path.join(root, "missing"), () => true)).toEqual({ folders: [] })
    expect(listManifestFolders(path.join(root, "sets", "file.json"), () => true)).toEqual({ folders: [] })
  })
})

describe("a manifest nested 100,000 levels deep is one note naming the file, never a crash", () => {
  it("tools.json of a workspace tool set (valid JSON: its parameters were walked recursively)", async () => {
    const root = await tempDir("crystal-deep-tools-")
    const tool = `{"name": "t", "description": "d", "command": ["true"], "parameters": {"type": "object", "properties": {"x": ${"[".repeat(100_000)}${"]".repeat(100_000)}}}}`
    await writeTree(root, { "home/.keep": "", "ws/.crystal/tools/deep/tools.json": `{"tools": [${tool}]}` })
    const found = discoverToolSets(path.join(root, "home"), path.join(root, "ws"))
    expect(found.sets).toEqual([])
    expect(found.notes).toEqual([`${path.join(root, "ws/.crystal/tools/deep/tools.json")}: nests deeper than ${maxJsonDepth} levels`])
  })

  it("mcp.json of a workspace (valid JSON: its entry was hashed recursively)", async () => {
    const ws = await tempDir("crystal-deep-mcp-")
    await writeTree(ws, { ".crystal/mcp.json": `{"mcpServers": {"s": {"command": "x", "deep": ${"[".repeat(100_000)}${"]".repeat(100_000)}}}}` })
    const read = readWorkspaceServers(ws, new Set())
    expect(read.servers).toEqual([])
    expect(read.notes).toEqual([`${path.join(ws, ".crystal/mcp.json")}: nests deeper than ${maxJsonDepth} levels; its MCP servers are not started`])
  })

  it("prompt.json of a prompt set (broken JSON: the syntax locator recursed into it)", async () => {
    const home = await tempDir("crystal-deep-prompt-")
    await writeTree(home, { "promptsets/deep/prompt.json": deepBroken(100_000) })
    const read = readManifest(path.join(home, "promptsets", "deep"), "prompt set", crystalHomeRoot(home))
    expect(read).toEqual({ _tag: "Problem", file: path.join(home, "promptsets/deep/prompt.json"), problem: `nests deeper than ${maxJsonDepth} levels` })
  })

  it("plugin.json (broken JSON)", async () => {
    const home = await tempDir("crystal-deep-plugin-")
    await writeTree(home, { "plugins/deep/plugin.json": deepBroken(100_000), "plugins/deep/index.js": "" })
    const read = readPluginManifest(path.join(home, "plugins", "deep"))
    expect(read).toEqual({ _tag: "Problem", file: path.join(home, "plugins/deep/plugin.json"), problem: `nests deeper than ${maxJsonDepth} levels` })
  })
})
