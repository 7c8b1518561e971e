/**
 * Every file Crystal reads on its own initiative (issue 23, item 4), each planted as a symbolic
 * link to a file outside its root that holds a marker and would be valid if read: the marker
 * reaches no result, and a note names the refused file. A FIFO in the same places is refused
 * without blocking (a guard unblocks a reader that would hang, so the test fails instead).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { makeCrystalPaths } from "../../../src/config/paths.ts"
import { discoverToolSets } from "../../../src/external-tools/discover.ts"
import { readWorkspaceServers } from "../../../src/mcp/workspace-servers.ts"
import { discoverPromptAttachments } from "../../../src/prompts/attachments.ts"
import { readInstructions } from "../../../src/prompts/instructions.ts"
import { PromptResolver } from "../../../src/prompts/prompt-resolver.ts"
import { discoverPromptSets } from "../../../src/prompts/sets.ts"
import { makeSessionStore } from "../../../src/session/store.ts"
import { discoverSkills } from "../../../src/skills/discover.ts"
import { makeSkillTool } from "../../../src/tools/skill-tool.ts"
import type { ToolContext } from "../../../src/tools/tool.ts"
import { makeFifo, unblockFifoAfter, type FifoGuard } from "../../support/fifo.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const marker = "MARKER-OUTSIDE-41d9"

const guards: Array<FifoGuard> = []
afterEach(() => {
  for (const guard of guards.splice(0)) guard.stop()
})

/** A home, a workspace and, beside them, an "outside" folder of valid files that hold the marker. */
const layout = async () => {
  const root = await tempDir("crystal-self-read-")
  const home = path.join(root, "home")
  const ws = path.join(root, "ws")
  const outside = path.join(root, "outside")
  await fs.mkdir(home)
  await fs.mkdir(ws)
  await writeTree(outside, {
    "text.md": `${marker} instructions\n`,
    "enabled.json": `{"enabled": true, "name": "${marker}"}`,
    "SKILL.md": `---\nname: leak\ndescription: ${marker}\n---\n${marker}\n`,
    "tools.json": JSON.stringify({ tools: [{ name: "leak", description: marker, command: ["echo", marker] }] }),
    "mcp.json": JSON.stringify({ mcpServers: { leak: { command: "echo", args: [marker] } } })
  })
  /** A link at `file` (made with its folders) to the outside file `name`. */
  const plant = async (file: string, name: string) => {
    await fs.mkdir(path.dirname(file), { recursive: true })
    await fs.symlink(path.join(outside, name), file)
  }
  /** A FIFO at `file` with a guard. */
  const fifo = async (file: string) => {
    await fs.mkdir(path.dirname(file), { recursive: true })
    makeFifo(file)
    guards.push(unblockFifoAfter(file, 5))
  }
  return { root, home, ws, outside, plant, fifo }
}

const clean = (value: unknown) => expect(JSON.stringify(value)).not.toContain(marker)

const composeWork = (home: string, ws: string) => {
  const paths = makeCrystalPaths(ws, { CRYSTAL_HOME: home })
  const doc = makeSessionStore(paths.sessionsDir).create({ workspace: ws, model: "local/m", mode: "work", approval: "default" })
  return Effect.runPromise(
    Effect.gen(function* () {
      const resolver = yield* PromptResolver
      const text = yield* resolver.compose(doc)
      return { text, notes: resolver.notes() }
    }).pipe(Effect.provide(PromptResolver.layerTest(paths)))
  )
}

describe("files Crystal reads by itself, planted as links out of their root", () => {
  it("AGENTS.md and CRYSTAL.md: no text, a note naming each", async () => {
    const { ws, plant } = await layout()
    await plant(path.join(ws, "AGENTS.md"), "text.md")
    await writeTree(ws, { "CRYSTAL.md": "Use pnpm.\n" })
    const read = readInstructions(ws)
    clean(read.files)
    expect(read.files).toEqual([{ name: "CRYSTAL.md", text: "Use pnpm." }])
    expect(read.notes).toEqual([`${path.join(ws, "AGENTS.md")} is a symbolic link to a file outside the workspace; it was not read`])
  })

  it("the composed system text: workspace and home prompt files, AGENTS.md; the notes name them", async () => {
    const { home, ws, plant } = await layout()
    await plant(path.join(ws, "AGENTS.md"), "text.md")
    await plant(path.join(ws, ".crystal", "prompts", "work.md"), "text.md")
    await plant(path.join(home, "prompts", "work.md"), "text.md")
    const { text, notes } = await composeWork(home, ws)
    expect(text).not.toContain(marker)
    expect(notes).toEqual([
      `${path.join(ws, "AGENTS.md")} is a symbolic link to a file outside the workspace; it was not read`,
      `${path.join(ws, ".crystal", "prompts", "work.md")} is a symbolic link to a file outside the workspace; it was not read`,
      `${path.join(home, "prompts", "work.md")} is a symbolic link to a file outside the Crystal home; it was not read`
    ])
  })

  it("prompt attachments (prompt.json and work.md) and prompt sets: skipped or missing, with notes", async () => {
    const { home, ws, plant } = await layout()
    const attachments = path.join(ws, ".crystal", "prompt-attachments")
    await plant(path.join(attachments, "manifest-out", "prompt.json"), "enabled.json")
    await writeTree(attachments, { "text-out/prompt.json": '{"enabled": true}' })
    await plant(path.join(attachments, "text-out", "work.md"), "text.md")
    await plant(path.join(home, "promptsets", "set-out", "prompt.json"), "enabled.json")
    const paths = { home, workspaceDir: path.join(ws, ".crystal") }
    const found = discoverPromptAttachments(paths)
    clean(found.attachments)
    expect(found.attachments.map((attachment) => [attachment.id, Object.keys(attachment.files)])).toEqual([["text-out", []]])
    expect(found.notes).toEqual([
      `${path.join(attachments, "manifest-out", "prompt.json")}: is a symbolic link to a file outside the workspace; prompt attachment 'manifest-out' skipped.`,
      `${path.join(attachments, "text-out", "work.md")} is a symbolic link to a file outside the workspace; treated as missing.`
    ])
    const sets = discoverPromptSets(home)
    clean(sets.sets)
    expect(sets.notes).toEqual([
      `${path.join(home, "promptsets", "set-out", "prompt.json")}: is a symbolic link to a file outside the Crystal home; prompt set 'set-out' skipped.`
    ])
  })

  it("skills: SKILL.md skipped with a note; a skill whose file is swapped for a link after discovery is refused by the skill tool", async () => {
    const { home, ws, outside, plant } = await layout()
    await plant(path.join(ws, ".crystal", "skills", "leak", "SKILL.md"), "SKILL.md")
    await writeTree(ws, { ".crystal/skills/fine/SKILL.md": "---\nname: fine\ndescription: a fine skill\n---\nbody\n" })
    const found = discoverSkills(path.join(home, "skills"), path.join(ws, ".crystal", "skills"), { home, workspace: ws })
    clean(found.skills)
    expect(found.skills.map((skill) => skill.name)).toEqual(["fine"])
    expect(found.notes).toEqual([
      `${path.join(ws, ".crystal", "skills", "leak", "SKILL.md")} is a symbolic link to a file outside the workspace; it was not read; skill folder ${path.join(ws, ".crystal", "skills", "leak")} skipped.`
    ])
    const skillFile = path.join(ws, ".crystal", "skills", "fine", "SKILL.md")
    await fs.rm(skillFile)
    await fs.symlink(path.join(outside, "SKILL.md"), skillFile)
    const loaded = await Effect.runPromise(Effect.either(makeSkillTool(found.skills).run({ name: "fine" } as never, {} as ToolContext)))
    clean(loaded)
    expect(loaded).toMatchObject({ _tag: "Left", left: { message: expect.stringContaining("is a symbolic link to a file outside the workspace") } })
  })

  it("tools.json of a project set and of a home set: broken, with a note", async () => {
    const { home, ws, plant } = await layout()
    await plant(path.join(ws, ".crystal", "tools", "leak", "tools.json"), "tools.json")
    await plant(path.join(home, "tools", "homeleak", "tools.json"), "tools.json")
    const found = discoverToolSets(home, ws)
    clean(found.sets)
    expect(found.sets).toEqual([])
    expect(found.notes).toEqual([
      `${path.join(home, "tools", "homeleak", "tools.json")} is a symbolic link to a file outside the Crystal home; it was not read; skipped`,
      `${path.join(ws, ".crystal", "tools", "leak", "tools.json")} is a symbolic link to a file outside the workspace; it was not read; skipped`
    ])
  })

  it(".crystal/mcp.json: no servers, a note", async () => {
    const { ws, plant } = await layout()
    await plant(path.join(ws, ".crystal", "mcp.json"), "mcp.json")
    const read = readWorkspaceServers(ws, new Set())
    clean(read.servers)
    expect(read.notes).toEqual([`${path.join(ws, ".crystal", "mcp.json")} is a symbolic link to a file outside the workspace; it was not read; its MCP servers are not started`])
  })

  it("a .crystal folder that is itself a link out: nothing under it is read", async () => {
    const { home, ws, outside } = await layout()
    await writeTree(outside, {
      "dot/mcp.json": JSON.stringify({ mcpServers: { leak: { command: "echo", args: [marker] } } }),
      "dot/prompts/work.md": `${marker}\n`,
      "dot/tools/leak/tools.json": JSON.stringify({ tools: [{ name: "leak", description: marker, command: ["echo", marker] }] })
    })
    await fs.symlink(path.join(outside, "dot"), path.join(ws, ".crystal"))
    expect(readWorkspaceServers(ws, new Set()).notes[0]).toContain("is reached through a symbolic link to a folder outside the workspace")
    expect(discoverToolSets(home, ws).sets).toEqual([])
    const { text, notes } = await composeWork(home, ws)
    expect(text).not.toContain(marker)
    expect(notes.join("\n")).toContain(`${path.join(ws, ".crystal", "prompts", "work.md")} is reached through a symbolic link to a folder outside the workspace`)
  })
})

describe("files Crystal reads by itself, planted as FIFOs", () => {
  it("AGENTS.md, a prompt file, tools.json and mcp.json: refused at once, each with a note", async () => {
    const { home, ws, fifo } = await layout()
    await fifo(path.join(ws, "AGENTS.md"))
    await fifo(path.join(ws, ".crystal", "prompts", "work.md"))
    await fifo(path.join(ws, ".crystal", "tools", "pipe", "tools.json"))
    await fifo(path.join(ws, ".crystal", "mcp.json"))
    const { notes } = await composeWork(home, ws)
    expect(notes).toEqual([
      `${path.join(ws, "AGENTS.md")} is a FIFO (named pipe), not a regular file; it was not read`,
      `${path.join(ws, ".crystal", "prompts", "work.md")} is a FIFO (named pipe), not a regular file; it was not read`
    ])
    expect(discoverToolSets(home, ws).notes).toEqual([`${path.join(ws, ".crystal", "tools", "pipe", "tools.json")} is a FIFO (named pipe), not a regular file; it was not read; skipped`])
    expect(readWorkspaceServers(ws, new Set()).notes).toEqual([
      `${path.join(ws, ".crystal", "mcp.json")} is a FIFO (named pipe), not a regular file; it was not read; its MCP servers are not started`
    ])
  })
})
