import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import {
  editManifestText,
  isValidPromptDirName,
  parseManifestText,
  readManifest,
  writeManifestChanges,
  type PromptManifest
} from "../../../src/prompts/manifest.ts"
import { crystalHomeRoot, workspaceRoot } from "../../../src/files/confined-read.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const problemOf = (text: string, kind: "prompt set" | "prompt attachment" = "prompt attachment"): string => {
  const read = parseManifestText("/x/prompt.json", text, kind)
  return read._tag === "Problem" ? read.problem : "valid"
}

describe("prompt.json validation", () => {
  it.each([
    ["{}", "valid"],
    ['{"name":"A","description":"B","enabled":true,"order":3,"extra":{"kept":[1]}}', "valid"],
    [`{"name":"${"n".repeat(80)}"}`, "valid"],
    [`{"name":"${"n".repeat(81)}"}`, '"name" must be at most 80 characters (got 81)'],
    [`{"description":"${"é".repeat(280)}"}`, "valid"],
    [`{"description":"${"d".repeat(281)}"}`, '"description" must be at most 280 characters (got 281)'],
    ['{"name":7}', '"name" must be a string (got 7)'],
    ['{"enabled":"yes"}', '"enabled" must be true or false (got "yes")'],
    ['{"enabled":null}', '"enabled" must be true or false (got null)'],
    ['{"order":1.5}', '"order" must be an integer (got 1.5)'],
    ['{"order":"1"}', '"order" must be an integer (got "1")'],
    ['{"order":-2}', "valid"],
    ['{"enabled":1,"order":"x"}', '"enabled" must be true or false (got 1) (and 1 more problem)'],
    ["[]", "expected a JSON object at the top level"],
    ['{"enabled": tru}', 'not valid JSON at line 1, column 13: unexpected "tru}"'],
    ["", "not valid JSON at line 1, column 1: unexpected end of file"]
  ])("%s → %s", (text, expected) => {
    expect(problemOf(text)).toBe(expected)
  })

  it("checks order only for attachments (in a prompt set it is an unknown field, kept)", () => {
    expect(problemOf('{"order":"first"}', "prompt set")).toBe("valid")
  })

  it("treats an omitted enabled as off and keeps unknown fields", () => {
    const read = parseManifestText("/x/prompt.json", '{"name":"T","future":{"a":1}}', "prompt set")
    expect(read._tag).toBe("Manifest")
    if (read._tag !== "Manifest") return
    expect(read.manifest).toMatchObject({ name: "T", enabled: false, order: undefined, raw: { future: { a: 1 } } })
  })

  it("reports missing and unreadable manifests naming the file", async () => {
    const dir = await tempDir()
    await writeTree(dir, { "a/readme.md": "x" })
    await fs.mkdir(path.join(dir, "b", "prompt.json"), { recursive: true })
    expect(readManifest(path.join(dir, "a"), "prompt set", crystalHomeRoot(dir))).toEqual({ _tag: "Problem", file: path.join(dir, "a", "prompt.json"), problem: "missing" })
    expect(readManifest(path.join(dir, "b"), "prompt set", crystalHomeRoot(dir))).toEqual({
      _tag: "Problem",
      file: path.join(dir, "b", "prompt.json"),
      problem: "is a directory, not a file"
    })
  })

  it("accepts directory names of 1–64 characters starting with a letter", () => {
    for (const name of ["a", "default", "My_set.v2-b", `a${"b".repeat(63)}`]) expect(isValidPromptDirName(name)).toBe(true)
    for (const name of ["", "1abc", "-x", ".hidden", "a b", "a/b", `a${"b".repeat(64)}`, "é"]) expect(isValidPromptDirName(name)).toBe(false)
  })
})

describe("editing prompt.json", () => {
  it("replaces an existing value in place, every other byte kept", () => {
    const text = '{\n    "zeta": [1, 2],\n    "enabled" :  false,\n    "name": "T",\n    "order": 4\n}\n'
    expect(editManifestText(text, { enabled: true })).toBe('{\n    "zeta": [1, 2],\n    "enabled" :  true,\n    "name": "T",\n    "order": 4\n}\n')
    expect(editManifestText(text, { enabled: true, order: 0 })).toBe(
      '{\n    "zeta": [1, 2],\n    "enabled" :  true,\n    "name": "T",\n    "order": 0\n}\n'
    )
  })

  it("adds a missing field last, formatted like the others", () => {
    expect(editManifestText('{\n  "name": "T",\n  "x": {"enabled": 1}\n}\n', { enabled: true })).toBe(
      '{\n  "name": "T",\n  "x": {"enabled": 1},\n  "enabled": true\n}\n'
    )
    expect(editManifestText('{"name":"T"}', { enabled: false, order: 2 })).toBe('{"name":"T","enabled":false,"order":2}')
    expect(editManifestText('{"enabled": true}', { order: 1 })).toBe('{"enabled": true, "order": 1}')
    expect(editManifestText('{"a": 1, "b": 2}', { order: 1 })).toBe('{"a": 1, "b": 2, "order": 1}')
    expect(editManifestText("{}", { enabled: true })).toBe('{\n  "enabled": true\n}')
  })

  it("leaves the text alone when the values are already there", () => {
    const text = '{ "enabled": true, "order": 1.0 }'
    expect(editManifestText(text, { enabled: true, order: 1 })).toBe(text)
  })

  it("keeps a byte-order mark, nested objects, strings with braces and duplicate keys consistent", () => {
    const text = '\uFEFF{"s": "}{\\"", "n": {"enabled": true}, "enabled": true, "enabled": true}'
    const edited = editManifestText(text, { enabled: false })
    expect(edited).toBe('\uFEFF{"s": "}{\\"", "n": {"enabled": true}, "enabled": false, "enabled": false}')
    expect(JSON.parse(edited.slice(1))).toEqual({ s: '}{"', n: { enabled: true }, enabled: false })
  })

  it("writes atomically, keeps the mode, and refuses when the file changed since it was read", async () => {
    const dir = await tempDir()
    const file = path.join(dir, "prompt.json")
    await fs.writeFile(file, '{"enabled": false}\n', { mode: 0o640 })
    const read = readManifest(dir, "prompt attachment", workspaceRoot(dir))
    if (read._tag !== "Manifest") throw new Error("expected a manifest")
    const manifest: PromptManifest = read.manifest
    expect(await Effect.runPromise(writeManifestChanges(manifest, { enabled: false }))).toBe(false)
    expect(await Effect.runPromise(writeManifestChanges(manifest, { enabled: true, order: 0 }))).toBe(true)
    expect(await fs.readFile(file, "utf8")).toBe('{"enabled": true, "order": 0}\n')
    expect((await fs.stat(file)).mode & 0o777).toBe(0o640)
    expect((await fs.readdir(dir)).sort()).toEqual(["prompt.json"])
    // `manifest` still holds the old text: a second write from it is refused and writes nothing.
    const error = await Effect.runPromise(Effect.flip(writeManifestChanges(manifest, { enabled: false })))
    expect(error.message).toContain("changed on disk")
    expect(await fs.readFile(file, "utf8")).toBe('{"enabled": true, "order": 0}\n')
  })

  it("writes through a symbolic link, leaving the link in place", async () => {
    const dir = await tempDir()
    await writeTree(dir, { "real/prompt.json": '{"enabled":false}', "set/.keep": "" })
    await fs.symlink(path.join(dir, "real", "prompt.json"), path.join(dir, "set", "prompt.json"))
    const read = readManifest(path.join(dir, "set"), "prompt set", crystalHomeRoot(dir))
    if (read._tag !== "Manifest") throw new Error("expected a manifest")
    await Effect.runPromise(writeManifestChanges(read.manifest, { enabled: true }))
    expect((await fs.lstat(path.join(dir, "set", "prompt.json"))).isSymbolicLink()).toBe(true)
    expect(await fs.readFile(path.join(dir, "real", "prompt.json"), "utf8")).toBe('{"enabled":true}')
  })
})
