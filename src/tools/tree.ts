import * as Effect from "effect/Effect"
import { describeSymlink } from "./list.ts"
import { statOrNotFound } from "./not-found.ts"
import { TREE_DEFAULT_DEPTH, treeSpec } from "./specs.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"
import { capLines, type OutputCaps } from "./truncate.ts"
import { ignoreRootFor, WalkAborted, WalkDir } from "../files/walk/walk.ts"
import { messageOf } from "../text/error-text.ts"

export const TREE_CAPS: OutputCaps = { maxLines: 500, maxBytes: 32 * 1024, maxLineChars: 500 }
/** The walk stops after this many entries; the spilled text then ends with a note. */
const TREE_MAX_ENTRIES = 20_000


const buildTree = async (start: WalkDir, depth: number): Promise<{ readonly lines: Array<string>; readonly stopped: boolean }> => {
  const lines: Array<string> = []
  let stopped = false
  const visit = async (dir: WalkDir, indent: string, level: number): Promise<void> => {
    const entries = await dir.entries()
    const ordered = [...entries.filter((entry) => entry.kind === "dir"), ...entries.filter((entry) => entry.kind !== "dir")]
    for (const entry of ordered) {
      if (lines.length >= TREE_MAX_ENTRIES) {
        stopped = true
        return
      }
      if (entry.kind === "dir") {
        const child = dir.child(entry)
        if (level < depth) {
          lines.push(`${indent}${entry.name}/`)
          await visit(child, `${indent}  `, level + 1)
          if (stopped) return
        } else {
          const hasEntries = (await child.entries()).length > 0
          lines.push(`${indent}${entry.name}/${hasEntries ? " …" : ""}`)
        }
      } else if (entry.kind === "symlink") {
        lines.push(`${indent}${await describeSymlink(entry.path, entry.name)}`)
      } else {
        lines.push(`${indent}${entry.name}`)
      }
    }
  }
  await visit(start, "  ", 1)
  return { lines, stopped }
}

/** The tree tool (its definition is treeSpec in specs.ts). */
export const showTree = (args: { readonly path?: string | undefined; readonly depth?: number | undefined }, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    const { real, display } = yield* context.fence.resolve(args.path ?? ".", "read")
    const depth = args.depth ?? TREE_DEFAULT_DEPTH
    const { lines, stopped } = yield* Effect.tryPromise({
      try: async (signal) => {
        const stat = await statOrNotFound(context, real, display, "Directory")
        if (!stat.isDirectory()) throw new ToolError({ message: `${display} is a file, not a directory; use read to see its contents.` })
        const start = await WalkDir.open(ignoreRootFor(context.fence, real), real, { signal })
        return buildTree(start, depth)
      },
      catch: (error) =>
        error instanceof ToolError
          ? error
          : error instanceof WalkAborted
            ? new ToolError({ message: "tree was interrupted" })
            : new ToolError({ message: `cannot walk ${display}: ${messageOf(error)}` })
    })
    const root = display.endsWith("/") ? display : `${display}/`
    if (lines.length === 0) return { text: `${root} (empty, or every entry is ignored)` }
    const text = yield* capLines(context, treeSpec.name, [root, ...lines], TREE_CAPS, { unit: "entries" })
    return { text: stopped ? `${text}\n[The walk stopped after ${TREE_MAX_ENTRIES} entries; use a smaller depth or a sub-directory.]` : text }
  })
