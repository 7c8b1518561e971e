import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { startSession } from "../../../layers/session.ts"
import { assembleCatalog } from "../../../src/engine/catalog.ts"
import { Toolbox } from "../../../src/engine/toolbox.ts"
import { jsonRenderer } from "../../../src/cli/render/json.ts"
import { providedToolNames, reservedToolNames } from "../../../src/tools/tool-names.ts"
import * as P from "../../../src/tools/params.ts"
import { defineTool, everyMode, workModeOnly, type Tool } from "../../../src/tools/tool.ts"
import { touchesNothing } from "../../support/classification.ts"
import { preparedSession } from "../../support/prepared.ts"
import { tempDir } from "../../support/temp.ts"
import { workspaceRoot } from "../../../src/files/confined-read.ts"

const tool = (name: string, modes = everyMode): Tool =>
  defineTool({ name, description: name, parameters: P.object({}), modes, classify: touchesNothing, run: () => Effect.succeed({ text: "" }) })

const names = (tools: ReadonlyArray<Tool>) => tools.map((candidate) => candidate.name)

/** The catalogs of a real session with one skill, as the engine sees them. */
const sessionCatalogs = async (extra: Record<string, unknown> = {}) => {
  const root = await tempDir()
  const prepared = preparedSession(root, { providers: { local: { protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", models: { m: {} } } }, ...extra }, "local/m")
  const skillDir = path.join(root, "skill")
  await fs.mkdir(skillDir)
  const withSkill = { ...prepared, skills: [{ name: "s", description: "a skill", dir: skillDir, file: path.join(skillDir, "SKILL.md"), source: "workspace" as const, root: workspaceRoot(root) }] }
  return Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* startSession(withSkill, { env: {}, renderer: jsonRenderer, operator: headlessOperator })
        const toolbox = Context.get(session.services, Toolbox)
        return { plan: names(toolbox.catalog("plan")), work: names(toolbox.catalog("work")), fileWriters: [...toolbox.fileWriters] }
      })
    )
  )
}

describe("catalogs", () => {
  it("a real session's Plan catalog is SPEC M1's and the plan tool (B9), with nothing else that writes or runs", async () => {
    const { plan } = await sessionCatalogs()
    expect(plan).toEqual(["read", "list", "tree", "glob", "grep", "search", "todowrite", "todoread", "plan", "question", "skill", "web_fetch", "task", "propose_plan"])
  })

  it("leaves web_fetch out of both catalogs when config.json says webFetch: false", async () => {
    const { plan, work } = await sessionCatalogs({ webFetch: false })
    expect(plan).not.toContain("web_fetch")
    expect(work).not.toContain("web_fetch")
    expect(work).toContain("bash")
  })

  it("a real session's Work catalog is SPEC M2's, and every name it provides is one --disable-tool accepts", async () => {
    const { work, fileWriters } = await sessionCatalogs()
    expect(work).toEqual([
      "read", "list", "tree", "glob", "grep", "search", "todowrite", "todoread", "plan", "question", "skill", "web_fetch", "task",
      "edit", "write", "bash", "bash_start", "bash_status", "bash_logs", "bash_stop"
    ])
    // The image tools are provided too, but this model takes no images and no imageModel is configured; propose_plan is Plan mode's.
    expect([...work, "view_image", "describe_image", "propose_plan"].sort()).toEqual([...providedToolNames].sort())
    expect(fileWriters.sort()).toEqual(["edit", "write"])
  })

  it("derives each catalog from the tools' own modes: tools of every mode first, in their order", () => {
    const tools = [tool("a"), tool("w1", workModeOnly), tool("b"), tool("w2", workModeOnly)]
    expect(names(assembleCatalog("plan", tools, new Set()))).toEqual(["a", "b"])
    expect(names(assembleCatalog("work", tools, new Set()))).toEqual(["a", "b", "w1", "w2"])
  })

  it("puts external tools (tool sets, MCP) after every built-in tool, in their own order, whatever their modes (SPEC M1, M2)", () => {
    const external = (name: string, modes = everyMode): Tool => ({ ...tool(name, modes), external: true })
    const tools = [tool("a"), tool("w1", workModeOnly), external("x1"), external("xw", workModeOnly), tool("b"), external("x2")]
    expect(names(assembleCatalog("plan", tools, new Set()))).toEqual(["a", "b", "x1", "x2"])
    expect(names(assembleCatalog("work", tools, new Set()))).toEqual(["a", "b", "w1", "x1", "xw", "x2"])
  })

  it("removes disabled tools from both catalogs", () => {
    const tools = [tool("grep"), tool("skill"), tool("bash_start", workModeOnly), tool("edit", workModeOnly)]
    const disabled = new Set(["grep", "bash_start", "skill"])
    expect(names(assembleCatalog("plan", tools, disabled))).toEqual([])
    expect(names(assembleCatalog("work", tools, disabled))).toEqual(["edit"])
  })

  it("offers view_image only to a model that takes images, and describe_image only with an imageModel, in both modes", () => {
    const view = defineTool({ ...tool("view_image"), needsImageInput: true })
    const tools = [tool("read"), view, tool("describe_image"), tool("edit", workModeOnly)]
    expect(names(assembleCatalog("plan", tools, new Set(), true))).toEqual(["read", "view_image", "describe_image"])
    expect(names(assembleCatalog("work", tools, new Set(), true))).toEqual(["read", "view_image", "describe_image", "edit"])
    expect(names(assembleCatalog("work", tools, new Set(), false))).toEqual(["read", "describe_image", "edit"])
    expect(names(assembleCatalog("plan", tools, new Set(["view_image", "describe_image"]), true))).toEqual(["read"])
  })

  it("reserves every built-in name, and the image tools", () => {
    for (const name of providedToolNames) expect(reservedToolNames.has(name)).toBe(true)
    expect(reservedToolNames.has("describe_image")).toBe(true)
  })
})
