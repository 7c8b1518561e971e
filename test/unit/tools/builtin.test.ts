import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { describe, expect, it } from "vitest"
import { touchesNothing } from "../../support/classification.ts"
import { makeBuiltinTools } from "../../../src/tools/builtin.ts"
import { builtinToolNames } from "../../../src/tools/tool-names.ts"
import { SearchIndexCache } from "../../../src/search/cache.ts"
import * as P from "../../../src/tools/params.ts"
import { globSpec, grepSpec, listSpec, readSpec, treeSpec } from "../../../src/tools/specs.ts"
import { editSpec, writeSpec } from "../../../src/tools/write-specs.ts"
import { searchSpec } from "../../../src/tools/search-spec.ts"
import { everyMode, lazyTool, ToolError, type Tool, type ToolContext } from "../../../src/tools/tool.ts"

const toolsDir = path.resolve(import.meta.dirname, "../../../src/tools")

/** Relative modules `file` imports for their values (not `import type`, not dynamic `import()`). */
const staticImports = async (file: string): Promise<Array<string>> => {
  const source = await fs.readFile(file, "utf8")
  const found: Array<string> = []
  for (const match of source.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm)) {
    if (match[1] === undefined && match[2] !== undefined) found.push(match[2])
  }
  return found
}

/** Every module (relative to src/tools, or a package) evaluated when `entry` is. */
const eagerClosure = async (entry: string): Promise<Array<string>> => {
  const seen = new Set<string>()
  const visit = async (file: string): Promise<void> => {
    for (const specifier of await staticImports(file)) {
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

const context = {} as ToolContext

describe("built-in tools", () => {
  it("offers read, list, tree, glob, grep, search, edit and write, in that order, with their definitions", () => {
    expect(builtinToolNames).toEqual(["read", "list", "tree", "glob", "grep", "search", "edit", "write"])
    const specs = [readSpec, listSpec, treeSpec, globSpec, grepSpec, searchSpec, editSpec, writeSpec]
    makeBuiltinTools(new SearchIndexCache()).forEach((tool, i) => {
      const spec = specs[i]
      const { run: _run, ...definition } = tool
      expect(definition).toEqual(spec)
      expect(tool.parameters).toBe(spec?.parameters)
    })
  })

  it("loads nothing but the definitions at start-up", async () => {
    const classification = ["../approval/classification.ts", "../approval/classify-paths.ts", "../approval/protected-files.ts", "../text/bytes.ts", "../text/plural.ts", "effect/Effect", "glob-pattern.ts", "node:path"]
    expect(await eagerClosure("specs.ts")).toEqual([...classification, "effect/Schema", "params.ts", "tool.ts"].sort())
    expect(await eagerClosure("builtin.ts")).toEqual([...classification, "effect/Schema", "image-specs.ts", "params.ts", "search-spec.ts", "specs.ts", "tool.ts", "web-fetch-spec.ts", "write-specs.ts"].sort())
  })
})

describe("lazyTool", () => {
  const spec = { name: "echo", description: "Echo.", parameters: P.object({ text: P.string() }), modes: everyMode, classify: touchesNothing }

  it("loads the implementation on the first run only, then runs it", async () => {
    let loads = 0
    const tool: Tool = lazyTool(spec, async () => {
      loads++
      return (args) => Effect.succeed({ text: `echo ${args.text}` })
    })
    expect(tool.name).toBe("echo")
    expect(tool.description).toBe("Echo.")
    expect(tool.parameters).toBe(spec.parameters)
    expect(loads).toBe(0)
    const first = tool.run({ text: "a" }, context)
    expect(loads).toBe(0)
    expect(await Effect.runPromise(first)).toEqual({ text: "echo a" })
    const [b, c] = await Promise.all([Effect.runPromise(tool.run({ text: "b" }, context)), Effect.runPromise(tool.run({ text: "c" }, context))])
    expect([b.text, c.text]).toEqual(["echo b", "echo c"])
    expect(loads).toBe(1)
  })

  it("keeps the implementation's failures", async () => {
    const tool = lazyTool(spec, async () => () => Effect.fail(new ToolError({ message: "nope" })))
    const exit = await Effect.runPromiseExit(tool.run({ text: "x" }, context))
    const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
    expect(failure?._tag === "Some" ? failure.value : undefined).toBeInstanceOf(ToolError)
    expect(failure?._tag === "Some" ? failure.value.message : undefined).toBe("nope")
  })

  it("treats a failing import as a defect", async () => {
    const tool = lazyTool(spec, () => Promise.reject(new Error("cannot load")))
    const exit = await Effect.runPromiseExit(tool.run({ text: "x" }, context))
    expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    expect(Exit.isFailure(exit) ? (Cause.squash(exit.cause) as Error).message : undefined).toBe("cannot load")
  })
})
