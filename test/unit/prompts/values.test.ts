import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { builtinPrompts } from "../../../src/prompts/builtin/index.ts"
import { readInstructions } from "../../../src/prompts/instructions.ts"
import { bindPlaceholders, placeholdersIn } from "../../../src/prompts/placeholders.ts"
import { gitRoot, hostValues, localTime, type SessionFacts } from "../../../src/prompts/values.ts"
import { tempDir } from "../../support/temp.ts"

const facts = (workspace: string, overrides: Partial<SessionFacts> = {}): SessionFacts => ({
  workspace,
  mode: "work",
  approval: "default",
  model: "anthropic/claude-sonnet-5-5",
  sessionId: "20261130-000000-abcdef",
  disabledTools: [],
  access: [],
  instructions: [],
  skills: "",
  now: new Date(2026, 10, 30, 14, 5, 9),
  ...overrides
})

describe("placeholders", () => {
  it("insert values literally: a {{x}} inside a value stays", () => {
    expect(bindPlaceholders("a {{x}} b {{y}} {{z}}", new Map([["x", "{{y}}"], ["y", "Y"]]))).toBe("a {{y}} b Y {{z}}")
  })

  it("leave the token and report when a resolver throws or returns nothing", () => {
    const notes: Array<string> = []
    const text = bindPlaceholders("{{a}} {{b}}", new Map<string, () => string | undefined>([["a", () => { throw new Error("boom") }], ["b", () => undefined]]), (note) => notes.push(note))
    expect(text).toBe("{{a}} {{b}}")
    expect(notes).toEqual(["The placeholder {{a}} failed (boom); it was left as it is.", "The placeholder {{b}} has no value; it was left as it is."])
  })
})

describe("host values (SPEC P2)", () => {
  it("bind every slot the built-in texts declare", async () => {
    const values = hostValues(facts(await tempDir()))
    const host = ["env", "skills", "instructions_section", "product_name"]
    for (const name of ["work", "plan"] as const) {
      for (const slot of builtinPrompts[name].slots) expect(host).toContain(slot)
      expect(placeholdersIn(bindPlaceholders(builtinPrompts[name].text, values))).toEqual([])
    }
    const atomic = ["workspace", "is_git_repo", "git_root", "platform", "os", "architecture", "date", "time", "provider", "model", "model_line", "mode", "product_name", "session_id", "approval"]
    for (const slot of [...atomic, "env", "skills", "directories", "instructions_section", "instructions"]) expect(values.has(slot)).toBe(true)
  })

  it("give time with a numeric offset and the atomic values exactly", async () => {
    const workspace = await tempDir()
    const values = hostValues(facts(workspace))
    expect(values.get("time")).toMatch(/^2026-11-30T14:05:09[+-]\d\d:\d\d$/)
    expect(localTime(new Date(2026, 0, 2, 3, 4, 5))).toMatch(/^2026-01-02T03:04:05[+-]\d\d:\d\d$/)
    expect(values.get("date")).toBe("2026-11-30")
    expect(values.get("provider")).toBe("anthropic")
    expect(values.get("model")).toBe("claude-sonnet-5-5")
    expect(values.get("mode")).toBe("work")
    expect(values.get("approval")).toBe("default")
    expect(values.get("session_id")).toBe("20261130-000000-abcdef")
    expect(values.get("is_git_repo")).toBe("no")
    expect(values.get("directories")).toBe("")
    expect(values.get("instructions_section")).toBe("")
  })

  it("find the git repository from the workspace or above it", async () => {
    const root = await tempDir()
    await fs.mkdir(path.join(root, ".git"))
    await fs.mkdir(path.join(root, "pkg"))
    expect(hostValues(facts(root)).get("is_git_repo")).toBe("yes")
    const inner = hostValues(facts(path.join(root, "pkg")))
    expect(inner.get("is_git_repo")).toBe("no")
    expect(inner.get("git_root")).toBe(root)
    expect(gitRoot(path.join(root, "pkg"))).toBe(root)
  })

  it("describe grants and list disabled tools in the environment block", async () => {
    const values = hostValues(facts(await tempDir(), { access: [{ dir: "/data", access: "read" }], disabledTools: ["bash", "grep"] }))
    expect(values.get("directories")).toBe("- /data: read only")
    expect(values.get("instructions_section")).toBe("\n\n# Directories granted for this session\n- /data: read only")
    expect(values.get("env")).toContain("- Tools the operator disabled (do not call them): bash, grep")
  })
})

describe("workspace instructions", () => {
  it("read AGENTS.md then CRYSTAL.md, both when present", async () => {
    const workspace = await tempDir()
    await fs.writeFile(path.join(workspace, "CRYSTAL.md"), "Use pnpm.\n")
    expect(readInstructions(workspace)).toEqual({ files: [{ name: "CRYSTAL.md", text: "Use pnpm." }], notes: [] })
    await fs.writeFile(path.join(workspace, "AGENTS.md"), "Run the tests.\n")
    const both = readInstructions(workspace).files
    expect(both.map((file) => file.name)).toEqual(["AGENTS.md", "CRYSTAL.md"])
    const values = hostValues(facts(workspace, { instructions: both }))
    expect(values.get("instructions")).toBe("From AGENTS.md:\nRun the tests.\n\nFrom CRYSTAL.md:\nUse pnpm.")
    expect(values.get("instructions_section")).toMatch(/^\n\n# Workspace instructions\nFrom AGENTS\.md:/)
  })
})
