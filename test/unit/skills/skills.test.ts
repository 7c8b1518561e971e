import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { discoverSkills, parseFrontMatter, skillsListing } from "../../../src/skills/discover.ts"
import { makeSkillTool } from "../../../src/tools/skill-tool.ts"
import type { ToolContext } from "../../../src/tools/tool.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const skillFile = (name: string, description: string, body = "Do the thing.\n") => `---\nname: ${name}\ndescription: ${description}\n---\n${body}`

const setup = async () => {
  const root = await tempDir()
  const home = path.join(root, "home-skills")
  const workspace = path.join(root, "ws-skills")
  await writeTree(home, {
    "release/SKILL.md": skillFile("release", "Cut a release"),
    "lint/SKILL.md": skillFile("lint", "Home lint rules"),
    "broken/SKILL.md": "no front matter here",
    "badname/SKILL.md": skillFile("has spaces", "x"),
    "nodesc/SKILL.md": "---\nname: nodesc\n---\nbody",
    "empty-folder/.keep": ""
  })
  await writeTree(workspace, {
    "lint/SKILL.md": skillFile("lint", '"Workspace lint rules"', "Run npm run lint.\n"),
    "lint/extra.md": "more"
  })
  return { home, workspace, roots: { home: root, workspace: root } }
}

describe("skills", () => {
  it("discovers home and workspace skills, the workspace winning a name clash", async () => {
    const { home, workspace, roots } = await setup()
    const { skills } = discoverSkills(home, workspace, roots)
    expect(skills.map((skill) => [skill.name, skill.description, skill.source])).toEqual([
      ["lint", "Workspace lint rules", "workspace"],
      ["release", "Cut a release", "home"]
    ])
  })

  it("skips bad folders with a note each, and touches nothing", async () => {
    const { home, workspace, roots } = await setup()
    const { notes } = discoverSkills(home, workspace, roots)
    expect(notes).toHaveLength(4)
    expect(notes.join("\n")).toMatch(/badname\/SKILL\.md: front matter "name" must be/)
    expect(notes.join("\n")).toMatch(/broken\/SKILL\.md: expected front matter/)
    expect(notes.join("\n")).toMatch(/nodesc\/SKILL\.md: front matter "description"/)
    expect(notes.join("\n")).toMatch(/empty-folder has no readable SKILL\.md/)
  })

  it("finds nothing where there are no skill folders", () => {
    expect(discoverSkills("/nonexistent/a", "/nonexistent/b", { home: "/nonexistent", workspace: "/nonexistent" })).toEqual({ skills: [], notes: [] })
  })

  it("lists skills for the system text", async () => {
    const { home, workspace, roots } = await setup()
    expect(skillsListing(discoverSkills(home, workspace, roots).skills)).toBe(
      "Load one with the skill tool when the task matches its description:\n- lint: Workspace lint rules\n- release: Cut a release"
    )
    expect(skillsListing([])).toBe("")
  })

  it("loads a skill's body with its folder, and refuses unknown names", async () => {
    const { home, workspace, roots } = await setup()
    const tool = makeSkillTool(discoverSkills(home, workspace, roots).skills)
    const loaded = await Effect.runPromise(tool.run({ name: "lint" } as never, {} as ToolContext))
    expect(loaded.text).toBe(`Skill lint (folder ${path.join(workspace, "lint")}):\n\nRun npm run lint.`)
    const unknown = await Effect.runPromise(Effect.either(tool.run({ name: "nope" } as never, {} as ToolContext)))
    expect(unknown).toMatchObject({ _tag: "Left", left: { message: "no skill named 'nope'; available: lint, release" } })
  })

  it("parses front matter with CRLF, quotes and comments", () => {
    expect(parseFrontMatter("---\r\nname: 'a'\r\n# comment\r\ndescription: b: c\r\n---\r\nbody\r\n")).toEqual({
      fields: { name: "a", description: "b: c" },
      body: "body\n"
    })
    expect(parseFrontMatter("name: a")).toBeUndefined()
  })
})
