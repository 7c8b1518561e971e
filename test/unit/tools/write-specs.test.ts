import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { editSpec, writeSpec } from "../../../src/tools/write-specs.ts"

const toolsDir = path.resolve(import.meta.dirname, "../../../src/tools")

/** Modules `file` imports for their values (not `import type`, not dynamic `import()`), transitively. */
const eagerClosure = async (entry: string): Promise<Array<string>> => {
  const seen = new Set<string>()
  const visit = async (file: string): Promise<void> => {
    const source = await fs.readFile(file, "utf8")
    for (const match of source.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm)) {
      const specifier = match[2]
      if (match[1] !== undefined || specifier === undefined) continue
      const target = specifier.startsWith(".") ? path.resolve(path.dirname(file), specifier) : specifier
      const name = specifier.startsWith(".") ? path.relative(toolsDir, target) : specifier
      if (seen.has(name)) continue
      seen.add(name)
      if (specifier.startsWith(".")) await visit(target)
    }
  }
  await visit(path.join(toolsDir, entry))
  return [...seen].sort()
}

describe("edit and write definitions", () => {
  it("load nothing but the definitions at start-up (implementations come on first run)", async () => {
    expect(await eagerClosure("write-specs.ts")).toEqual(
      ["../approval/classification.ts", "../approval/classify-paths.ts", "../approval/protected-files.ts", "effect/Effect", "effect/Schema", "params.ts", "tool.ts"].sort()
    )
  })

  it("offer the parameters the implementations expect", () => {
    expect(editSpec.name).toBe("edit")
    expect(editSpec.parameters.json).toEqual({
      type: "object",
      properties: {
        path: { type: "string", description: "File path (relative to the workspace, or absolute)." },
        old_string: { type: "string", description: "Exact text to replace." },
        new_string: { type: "string", description: "Replacement text." },
        replace_all: { type: "boolean", description: "Replace every occurrence (default false)." }
      },
      required: ["path", "old_string", "new_string"],
      additionalProperties: false
    })
    expect(writeSpec.name).toBe("write")
    expect(writeSpec.parameters.json).toMatchObject({ required: ["path", "content"], additionalProperties: false })
  })

  it("keep the descriptions short and say what the model must get right", () => {
    expect(editSpec.description).toMatch(/match the file exactly, whitespace and indentation included/)
    expect(editSpec.description).toMatch(/only once unless replace_all/)
    expect(editSpec.description).toMatch(/Read the file first/)
    expect(writeSpec.description).toMatch(/creating parent directories/)
    expect(editSpec.description.length + writeSpec.description.length).toBeLessThan(520)
  })
})
