import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import type { Classification } from "../../../src/approval/classification.ts"
import { raiseClassification } from "../../../src/external-tools/module-tool.ts"
import type { Tool, ToolContext } from "../../../src/tools/tool.ts"
import { call, contextFor, load, makePlace, toolNamed, writeSet } from "./support.ts"

const classify = (tool: Tool, args: unknown, context: ToolContext): Promise<Classification> => Effect.runPromise(tool.classify(args as never, context))

const moduleSet = (source: string) => ({ "tools.json": { runner: "module", entry: "tools.mjs", timeoutSeconds: 1 }, "tools.mjs": source })

const classified = `
export const tools = [
  { definition: { name: "m_write", description: "writes", parameters: { type: "object", properties: { mode: { type: "string" }, to: { type: "string" } } } }, run: () => "ok" }
]
export const classify = async (name, args, ctx) => {
  if (args.mode === "lower") return { risk: "low", authority: "read" }
  if (args.mode === "raise") return { risk: "high", authority: "execute" }
  if (args.mode === "paths") return { paths: [args.to] }
  if (args.mode === "throw") throw new Error("no idea")
  if (args.mode === "bad") return { risk: "tiny" }
  if (args.mode === "slow") { await new Promise((resolve) => setTimeout(resolve, 5000)); return {} }
  return undefined
}
`

describe("the module runner", () => {
  it("runs a module tool with the host context; a result may be a string or { text }", async () => {
    const place = await makePlace()
    await writeSet(place, "home", "mod", {
      "tools.json": { runner: "module", entry: "tools.mjs" },
      "tools.mjs": `export const tools = [
        { definition: { name: "ctx", description: "ctx", parameters: { type: "object", properties: {} } }, run: (args, ctx) => ({ text: JSON.stringify({ ...ctx, signal: typeof ctx.signal.aborted }) }) },
        { definition: { name: "bad_def", description: "", parameters: {} }, run: () => "x" }
      ]`
    })
    const control = await load(place, { approval: "review" })
    const output = await call(toolNamed(control, "ctx"), {}, contextFor(place))
    const workspace = await fs.realpath(place.workspace)
    expect(JSON.parse(output.text)).toEqual({
      workspace,
      sessionId: "session-1",
      approval: "review",
      toolData: path.join(place.home, "tool-data", "mod"),
      projectData: path.join(workspace, ".crystal", "tool-data", "mod"),
      signal: "boolean"
    })
    expect(control.tools().map((tool) => tool.name)).toEqual(["ctx"])
    expect(control.notes()).toContainEqual(expect.stringMatching(/tools\.mjs: tools\[1\]\.definition\.description: expected a non-empty string; skipped/))
  })

  it("a module tool's run has the manifest's timeoutSeconds; a throw is an error result", async () => {
    const place = await makePlace()
    await writeSet(
      place,
      "home",
      "mod",
      moduleSet(`export const tools = [
        { definition: { name: "hang", description: "hangs", parameters: { type: "object" } }, run: (args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("aborted"))) },
        { definition: { name: "boom", description: "throws", parameters: { type: "object" } }, run: () => { throw new Error("kaput") } }
      ]`)
    )
    const control = await load(place)
    expect(await call(toolNamed(control, "hang"), {}, contextFor(place))).toEqual({ text: "hang timed out after 1 s and was stopped.", isError: true })
    expect(await call(toolNamed(control, "boom"), {}, contextFor(place))).toEqual({ text: "failure: boom failed: kaput", isError: true })
  })

  it("a module that cannot be imported is one note; its set is skipped", async () => {
    const place = await makePlace()
    await writeSet(place, "home", "mod", { "tools.json": { runner: "module", entry: "tools.mjs" }, "tools.mjs": "export const tools = [;" })
    const control = await load(place)
    expect(control.tools()).toEqual([])
    expect(control.notes()).toContainEqual(expect.stringMatching(/cannot load .*tools\.mjs: .*; the tool set mod is skipped/))
  })

  it("the classifier may only raise risk and authority; paths it names are placed by the host's fence", async () => {
    const place = await makePlace()
    await writeSet(place, "home", "mod", moduleSet(classified))
    const tool = toolNamed(await load(place), "m_write")
    const context = contextFor(place)
    expect(await classify(tool, {}, context)).toMatchObject({ risk: "medium", authority: "write", scope: "workspace" })
    expect(await classify(tool, { mode: "lower" }, context)).toMatchObject({ risk: "medium", authority: "write" })
    expect(await classify(tool, { mode: "raise" }, context)).toMatchObject({ risk: "high", authority: "execute" })
    const inside = await classify(tool, { mode: "paths", to: "out/file.txt" }, context)
    expect(inside).toMatchObject({ risk: "medium", scope: "workspace" })
    expect(inside.paths[0]?.real).toBe(path.join(await fs.realpath(place.workspace), "out/file.txt"))
    expect(await classify(tool, { mode: "paths", to: "/etc/passwd" }, context)).toMatchObject({ risk: "high", scope: "outside" })
  })

  it("fails closed: a throw or a bad answer = high risk and ask", async () => {
    const place = await makePlace()
    await writeSet(place, "home", "mod", moduleSet(classified))
    const tool = toolNamed(await load(place), "m_write")
    for (const mode of ["throw", "bad"]) {
      const result = await classify(tool, { mode }, contextFor(place))
      expect(result).toMatchObject({ risk: "high", ask: true })
    }
    expect((await classify(tool, { mode: "throw" }, contextFor(place))).summary).toMatch(/its classifier failed: no idea/)
  })

  it("a classifier past its 2-second budget fails closed and stays off until reload", async () => {
    const place = await makePlace()
    await writeSet(place, "home", "mod", moduleSet(classified))
    const control = await load(place)
    const context = contextFor(place)
    const slow = await classify(toolNamed(control, "m_write"), { mode: "slow" }, context)
    expect(slow).toMatchObject({ risk: "high", ask: true })
    expect(slow.summary).toMatch(/took longer than 2 s and is off until \/tools reload/)
    // Off: even an answer it would give at once is not asked for.
    const off = await classify(toolNamed(control, "m_write"), { mode: "raise" }, context)
    expect(off).toMatchObject({ risk: "high", ask: true, authority: "write" })
    expect(off.summary).toMatch(/its classifier is off/)
    await Effect.runPromise(control.reload)
    expect(await classify(toolNamed(control, "m_write"), { mode: "raise" }, context)).toMatchObject({ risk: "high", authority: "execute" })
    expect((await classify(toolNamed(control, "m_write"), {}, context)).ask).toBeUndefined()
  })

  it("raiseClassification never lowers anything", () => {
    const base: Classification = { risk: "high", authority: "execute", scope: "granted", summary: "s", paths: [] }
    expect(raiseClassification(base, { risk: "low", authority: "read" })).toMatchObject({ risk: "high", authority: "execute", scope: "granted" })
  })
})
