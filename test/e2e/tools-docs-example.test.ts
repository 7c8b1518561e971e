/** The example tool sets of docs/tools.md, copied into a home and called from `crystal run`. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"

const fakeServer = useFakeServers()
const examples = path.resolve(import.meta.dirname, "..", "..", "docs", "examples", "tools")

const toolResults = (stdout: string) =>
  jsonLines(stdout).filter((event) => event["type"] === "tool_result").map((event) => ({ name: event["name"], ok: event["ok"], output: String(event["output"]) }))

describe("docs/tools.md examples", () => {
  it("the Python exec set and the JavaScript module set run as documented", async () => {
    const sandbox = await makeSandbox({ "README.md": "one two\nthree\n" })
    await fs.cp(examples, path.join(sandbox.home, "tools"), { recursive: true })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([
      { toolCalls: [{ name: "word_count", arguments: { path: "README.md" } }] },
      { toolCalls: [{ name: "word_count", arguments: { path: "README.md", lines_only: true } }] },
      { toolCalls: [{ name: "add_note", arguments: { text: "ship it" } }] },
      { toolCalls: [{ name: "add_note", arguments: { text: "elsewhere", file: "/tmp/crystal-notes-outside.md" } }] },
      { text: "done" }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "go"])
    expect(result.code).toBe(0)
    const workspace = await fs.realpath(sandbox.workspace)
    const results = toolResults(result.stdout)
    expect(results.slice(0, 3)).toEqual([
      { name: "word_count", ok: true, output: "README.md: 2 lines, 3 words, 14 characters" },
      { name: "word_count", ok: true, output: "README.md: 2 lines" },
      { name: "add_note", ok: true, output: `${path.join(workspace, "NOTES.md")} now has 1 notes` }
    ])
    // A write outside the workspace asks even in full mode: headless, nobody answers.
    expect(results[3]).toMatchObject({ name: "add_note", ok: false })
    await expect(fs.access("/tmp/crystal-notes-outside.md")).rejects.toThrow()
    expect(await fs.readFile(path.join(workspace, "NOTES.md"), "utf8")).toBe("- ship it\n")
    expect(await fs.readFile(path.join(workspace, ".crystal", "tool-data", "wordcount", "counted.txt"), "utf8")).toBe("README.md\nREADME.md\n")
    expect(await fs.readFile(path.join(sandbox.home, "tool-data", "notes", "log.txt"), "utf8")).toMatch(/ ship it\n$/)
  })
})
