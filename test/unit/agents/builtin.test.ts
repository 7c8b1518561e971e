import { describe, expect, it } from "vitest"
import { builtinAgents, exploreAgent, readOnlyToolNames } from "../../../src/agents/builtin.ts"
import { searchSpec } from "../../../src/tools/search-spec.ts"
import { globSpec, grepSpec, listSpec, readSpec, treeSpec } from "../../../src/tools/specs.ts"
import { builtinToolNames } from "../../../src/tools/tool-names.ts"

describe("built-in agents", () => {
  it("explore's tools are exactly the built-in tools that only read, each offered in Plan mode", () => {
    const readers = [readSpec, listSpec, treeSpec, globSpec, grepSpec, searchSpec]
    expect(readOnlyToolNames).toEqual(readers.map((spec) => spec.name))
    for (const spec of readers) {
      expect(builtinToolNames).toContain(spec.name)
      expect(spec.modes).toContain("plan")
    }
    expect(exploreAgent.tools).toEqual(readOnlyToolNames)
    expect(exploreAgent.mode).toBe("plan")
  })

  it("are general and explore, each with a description and a prompt", () => {
    expect(builtinAgents.map((agent) => agent.name)).toEqual(["general", "explore"])
    for (const agent of builtinAgents) {
      expect(agent.description).not.toBe("")
      expect(agent.prompt).toMatch(/never (make up|guess)/i)
      expect(agent.source).toBe("builtin")
      expect(agent.model).toBe("inherit")
    }
  })
})
