/** `crystal tools list|show|enable|disable` through the compiled binary (SPEC X5). */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { makeSandbox, runCrystal, type Sandbox } from "../support/crystal.ts"

// The new field is written the way the file writes its first one ("runner":"exec": no space after the colon).
const manifestText = `{
    "runner":"exec",   "catalogs": ["work"],
    "tools": [ { "name": "lint", "description": "Lints.", "command": ["python3", "./lint.py"], "approval": "always" } ],
    "x-team-note": "kept as written"
}
`

const setUp = async (): Promise<Sandbox> => {
  const sandbox = await makeSandbox()
  const home = path.join(sandbox.home, "tools")
  const project = path.join(sandbox.workspace, ".crystal", "tools")
  await fs.mkdir(path.join(home, "lint"), { recursive: true })
  await fs.mkdir(path.join(home, "mod"), { recursive: true })
  await fs.mkdir(path.join(home, "broken"), { recursive: true })
  await fs.mkdir(path.join(project, "lint"), { recursive: true })
  await fs.writeFile(path.join(home, "lint", "tools.json"), manifestText)
  await fs.writeFile(path.join(home, "mod", "tools.json"), JSON.stringify({ runner: "module", entry: "tools.mjs" }))
  await fs.writeFile(path.join(home, "mod", "tools.mjs"), "throw new Error('listing must never import me')\n")
  await fs.writeFile(path.join(home, "broken", "tools.json"), '{"tools": "no"}')
  await fs.writeFile(path.join(project, "lint", "tools.json"), manifestText)
  return sandbox
}

describe("crystal tools", () => {
  it("lists home and project sets as a table or as text, without running any of them", async () => {
    const sandbox = await setUp()
    const table = await runCrystal(sandbox, ["tools", "list"])
    expect(table.code).toBe(0)
    expect(table.stdout.split("\n")[0]).toMatch(/^DIR\s+SOURCE\s+STATE\s+RUNNER\s+CATALOGS\s+TRUSTED\s+TOOLS$/)
    const text = await runCrystal(sandbox, ["tools", "list", "--format", "text"])
    expect(text.stdout.split("\n").filter((line) => line !== "").map((line) => line.split("\t").slice(0, 6))).toEqual([
      ["broken", "home", "broken", "-", "-", "-"],
      ["lint", "home", "replaced", "exec", "work", "-"],
      ["mod", "home", "enabled", "module", "plan,work", "-"],
      ["lint", "project", "enabled", "exec", "work", "no"]
    ])
    expect(text.stderr).toMatch(/broken\/tools\.json: tools: expected a non-empty list of tools \(got "no"\); the tool set is skipped/)
    const projectOnly = await runCrystal(sandbox, ["tools", "list", "--format", "text", "--source", "project"])
    expect(projectOnly.stdout.trim().split("\n").length).toBe(1)
  })

  it("shows one set; enable and disable change only its enabled field, keeping the file's other bytes", async () => {
    const sandbox = await setUp()
    const shown = await runCrystal(sandbox, ["tools", "show", "lint", "--format", "text"])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("source\tproject\n")
    expect(shown.stdout).toContain("tool-lint\tpython3 ./lint.py (output text, approval always, timeout 60 s)\n")
    const file = path.join(sandbox.workspace, ".crystal", "tools", "lint", "tools.json")
    const disabled = await runCrystal(sandbox, ["tools", "disable", "lint"])
    expect(disabled).toMatchObject({ code: 0, stdout: "project tool set lint disabled\n" })
    const after = await fs.readFile(file, "utf8")
    expect(after).toBe(manifestText.replace('"kept as written"\n', '"kept as written",\n    "enabled":false\n'))
    const homeFile = path.join(sandbox.home, "tools", "lint", "tools.json")
    expect(await fs.readFile(homeFile, "utf8")).toBe(manifestText)
    expect((await runCrystal(sandbox, ["tools", "enable", "lint"])).stdout).toBe("project tool set lint enabled\n")
    expect(await fs.readFile(file, "utf8")).toBe(manifestText.replace('"kept as written"\n', '"kept as written",\n    "enabled":true\n'))
    expect((await runCrystal(sandbox, ["tools", "disable", "lint", "--source", "home"])).stdout).toBe("home tool set lint disabled\n")
  })

  it("refuses a broken manifest or an unknown set with one line and exit 1, writing nothing", async () => {
    const sandbox = await setUp()
    const brokenFile = path.join(sandbox.home, "tools", "broken", "tools.json")
    const broken = await runCrystal(sandbox, ["tools", "enable", "broken"])
    expect(broken.code).toBe(1)
    expect(broken.stderr).toMatch(/^crystal: .*broken\/tools\.json: tools: expected a non-empty list of tools .*nothing was written\n$/)
    expect(await fs.readFile(brokenFile, "utf8")).toBe('{"tools": "no"}')
    const unknown = await runCrystal(sandbox, ["tools", "show", "nope"])
    expect(unknown).toMatchObject({ code: 1, stderr: "crystal: no tool set 'nope' (found: broken, lint, mod)\n" })
    const badWorkspace = await runCrystal(sandbox, ["tools", "list", "--workspace", "/no/such/dir"])
    expect(badWorkspace.code).toBe(2)
    expect(badWorkspace.stderr).toBe("crystal: --workspace /no/such/dir: not a directory\n")
  })
})
