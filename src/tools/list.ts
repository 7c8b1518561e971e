import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { statOrNotFound } from "./not-found.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"
import { capLines, type OutputCaps } from "./truncate.ts"
import { compareNames } from "../files/walk/walk.ts"
import { messageOf } from "../text/error-text.ts"
import { listSpec } from "./specs.ts"

export const LIST_CAPS: OutputCaps = { maxLines: 500, maxBytes: 32 * 1024, maxLineChars: 500 }


/** How a symbolic link is shown: `name -> target`, with a `/` after the name when it leads to a directory. */
export const describeSymlink = async (full: string, name: string): Promise<string> => {
  let target = "?"
  try {
    target = await fs.readlink(full)
  } catch {
    // shown as `?`
  }
  let isDir = false
  try {
    isDir = (await fs.stat(full)).isDirectory()
  } catch {
    // dangling link
  }
  return `${name}${isDir ? "/" : ""} -> ${target}`
}

/** The list tool (its definition is listSpec in specs.ts). */
export const listDirectory = (args: { readonly path?: string | undefined }, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    const { real, display } = yield* context.fence.resolve(args.path ?? ".", "read")
    const lines = yield* Effect.tryPromise({
      try: async () => {
        const stat = await statOrNotFound(context, real, display, "Directory")
        if (!stat.isDirectory()) throw new ToolError({ message: `${display} is a file, not a directory; use read to see its contents.` })
        const dirents = await fs.readdir(real, { withFileTypes: true })
        const dirs: Array<string> = []
        const others: Array<string> = []
        dirents.sort((a, b) => compareNames(a.name, b.name))
        for (const dirent of dirents) {
          if (dirent.isDirectory()) dirs.push(`${dirent.name}/`)
          else if (dirent.isSymbolicLink()) others.push(await describeSymlink(path.join(real, dirent.name), dirent.name))
          else others.push(dirent.name)
        }
        return [...dirs, ...others]
      },
      catch: (error) => (error instanceof ToolError ? error : new ToolError({ message: `cannot list ${display}: ${messageOf(error)}` }))
    })
    if (lines.length === 0) return { text: `${display} is empty.` }
    return { text: yield* capLines(context, listSpec.name, lines, LIST_CAPS, { unit: "entries" }) }
  })
