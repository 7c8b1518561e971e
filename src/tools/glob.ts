import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { compileGlob } from "../files/walk/gitignore.ts"
import { globBaseInput, splitGlobPattern } from "./glob-pattern.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"
import { capLines, type OutputCaps } from "./truncate.ts"
import { ignoreRootFor, walk, WalkAborted, WalkDir } from "../files/walk/walk.ts"
import { messageOf } from "../text/error-text.ts"
import { globSpec } from "./specs.ts"

export const GLOB_CAPS: OutputCaps = { maxLines: 500, maxBytes: 32 * 1024, maxLineChars: 500 }


const isFileOrLinkToFile = async (kind: string, full: string): Promise<boolean> => {
  if (kind === "file") return true
  if (kind !== "symlink") return false
  try {
    return (await fs.stat(full)).isFile()
  } catch {
    return false
  }
}

/** How deep a walk must go for `glob` to match: unlimited with `**` or alternates. */
const depthNeeded = (glob: string): number =>
  glob.includes("**") || glob.includes("{") ? Number.POSITIVE_INFINITY : glob.split("/").length

/** The glob tool (its definition is globSpec in specs.ts). */
export const findFiles = (args: { readonly pattern: string; readonly path?: string | undefined }, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    const pattern = args.pattern.trim()
    if (pattern === "") return yield* new ToolError({ message: "pattern is empty; give a glob such as **/*.ts" })
    const searchInput = args.path ?? "."
    // A pattern may start with a fixed directory part (`src/`, `../lib/`, `/abs/dir/`): walk only that.
    const split = splitGlobPattern(pattern)
    const baseInput = globBaseInput(split, searchInput)
    const base = yield* context.fence.resolve(baseInput, "read")
    const noMatch = { text: `No files match ${pattern} in ${context.fence.display(base.real)} (.git and ignored files are skipped).` }

    const glob = split.glob
    if (glob === undefined) {
      const stat = yield* Effect.promise(() => fs.stat(base.real).catch(() => undefined))
      if (stat === undefined) return noMatch
      if (stat.isDirectory()) {
        return yield* new ToolError({ message: `${base.display} is a directory; match files under it with a pattern such as ${path.posix.join(split.base, "**/*")}` })
      }
      return { text: base.display }
    }

    // globset rules, as grep's `glob` and the ignore files: `*` and `?` stay within a directory,
    // `**` spans directories, dotfiles are matched like any other name.
    const matcher = yield* Effect.try({
      try: () => compileGlob(glob),
      catch: (error) => new ToolError({ message: `invalid glob ${pattern}: ${messageOf(error)}` })
    })
    const found = yield* Effect.tryPromise({
      try: async (signal) => {
        const stat = await fs.stat(base.real).catch(() => undefined)
        if (stat === undefined || !stat.isDirectory()) return []
        const start = await WalkDir.open(ignoreRootFor(context.fence, base.real), base.real, { signal })
        const prefix = start.relative === "" ? 0 : start.relative.length + 1
        const files: Array<string> = []
        for await (const entry of walk(start, depthNeeded(glob))) {
          if (!matcher.test(entry.relative.slice(prefix))) continue
          if (await isFileOrLinkToFile(entry.kind, entry.path)) files.push(context.fence.display(entry.path))
        }
        return files
      },
      catch: (error) =>
        error instanceof WalkAborted ? new ToolError({ message: "glob was interrupted" }) : new ToolError({ message: `glob failed: ${messageOf(error)}` })
    })
    if (found.length === 0) return noMatch
    return { text: yield* capLines(context, globSpec.name, found, GLOB_CAPS, { unit: "paths" }) }
  })
