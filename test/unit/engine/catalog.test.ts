import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { assembleCatalog, catalogOrder, providedToolNames, reservedToolNames } from "../../../src/engine/catalog.ts"
import * as P from "../../../src/tools/params.ts"
import { defineTool, type Tool } from "../../../src/tools/tool.ts"
import { touchesNothing } from "../../support/classification.ts"

const tool = (name: string): Tool =>
  defineTool({ name, description: name, parameters: P.object({}), classify: touchesNothing, run: () => Effect.succeed({ text: "" }) })

const everything = new Map(
  [...catalogOrder.work].reverse().map((name) => [name, tool(name)] as const)
)

const names = (tools: ReadonlyArray<Tool>) => tools.map((candidate) => candidate.name)

describe("catalogs", () => {
  it("orders the Plan catalog as SPEC M1 says, with nothing that writes or runs", () => {
    expect(names(assembleCatalog("plan", everything, new Set()))).toEqual([
      "read", "list", "tree", "glob", "grep", "search", "todowrite", "todoread", "question", "skill"
    ])
  })

  it("orders the Work catalog as SPEC M2 says", () => {
    expect(names(assembleCatalog("work", everything, new Set()))).toEqual([
      "read", "list", "tree", "glob", "grep", "search", "todowrite", "todoread", "question", "skill",
      "edit", "write", "bash", "bash_start", "bash_status", "bash_logs", "bash_stop"
    ])
  })

  it("removes disabled tools from both catalogs", () => {
    const disabled = new Set(["grep", "bash_start", "skill"])
    expect(names(assembleCatalog("plan", everything, disabled))).not.toContain("grep")
    expect(names(assembleCatalog("work", everything, disabled))).toEqual(
      names(assembleCatalog("work", everything, new Set())).filter((name) => !disabled.has(name))
    )
  })

  it("skips tools the session does not have", () => {
    expect(names(assembleCatalog("work", new Map([["write", tool("write")], ["read", tool("read")]]), new Set()))).toEqual(["read", "write"])
  })

  it("reserves every built-in name, and provides only catalogued ones", () => {
    for (const name of providedToolNames) expect(reservedToolNames.has(name)).toBe(true)
    expect(reservedToolNames.has("describe_image")).toBe(true)
  })
})
