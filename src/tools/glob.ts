import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { compileGlob } from "./gitignore.ts"
import { ToolError, type ToolContext, type ToolOutput } from "./tool.ts"
import { capLines, type OutputCaps } from "./truncate.ts"
import { ignoreRootFor, walk, WalkAborted, WalkDir } from "./walk.ts"

export const GLOB_CAPS: OutputCaps = { maxLines: 500, maxBytes: 32 * 1024, maxLineChars: 500 }

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Characters that make a path segment a glob; a backslash escape is left to the glob compiler. */
const GLOB_SEGMENT = /[*?[{\\]/

export interface GlobPattern {
  /**
   * The fixed leading directory part: the `/`-separated segments before the first one holding a
   * glob character (`* ? [ {`, or a `\` escape). "" when the pattern starts with a glob, `/` for
   * a glob right under the root; kept as written (`../x`, `/abs/dir`, `./src`). For a pattern
   * without any glob character, the whole pattern.
   */
  readonly base: string
  /** The rest, matched against paths relative to `base`; undefined when the pattern has no glob. */
  readonly glob: string | undefined
}

/** Splits a glob pattern into the directory to walk and the glob to match under it. */
export const splitGlobPattern = (pattern: string): GlobPattern => {
  const segments = pattern.split("/")
  const first = segments.findIndex((segment) => GLOB_SEGMENT.test(segment))
  if (first === -1) return { base: pattern, glob: undefined }
  const fixed = segments.slice(0, first)
  const base = fixed.join("/")
  // `/*.ts`: the only fixed segment is the empty one before the leading slash.
  return { base: base === "" && fixed.length > 0 ? "/" : base, glob: segments.slice(first).join("/") }
}

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
export const findFiles = (args: { readonly pattern: string; readonly path?: string | undefined }, context: ToolContext): Effect.Effect<ToolOutput, ToolError> =>
  Effect.gen(function* () {
    const pattern = args.pattern.trim()
    if (pattern === "") return yield* new ToolError({ message: "pattern is empty; give a glob such as **/*.ts" })
    const searchInput = args.path ?? "."
    // A pattern may start with a fixed directory part (`src/`, `../lib/`, `/abs/dir/`): walk only that.
    const split = splitGlobPattern(pattern)
    const baseInput = split.base === "" ? searchInput : path.isAbsolute(split.base) ? split.base : path.join(searchInput, split.base)
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
      catch: (error) => new ToolError({ message: `invalid glob ${pattern}: ${errorMessage(error)}` })
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
        error instanceof WalkAborted ? new ToolError({ message: "glob was interrupted" }) : new ToolError({ message: `glob failed: ${errorMessage(error)}` })
    })
    if (found.length === 0) return noMatch
    return { text: yield* capLines(context, "glob", found, GLOB_CAPS, { unit: "paths" }) }
  })
