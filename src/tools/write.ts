/**
 * The write tool (its definition is writeSpec in write-specs.ts): creates or overwrites a file with
 * exactly the given content (UTF-8), creating parent directories, atomically; an existing file
 * keeps its mode.
 */
import type * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { checkParent, countLines, errorCode, refuseDirectorySyntax, replaceFile, toolErrorFrom } from "./edit-files.ts"
import type { KeyedSemaphore } from "../files/keyed-semaphore.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"
import { plural } from "../text/plural.ts"
import { writeSpec } from "./write-specs.ts"

export interface WriteArgs {
  readonly path: string
  readonly content: string
}

const statOrUndefined = async (real: string): Promise<fsSync.Stats | undefined> => {
  try {
    return await fs.stat(real)
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" || code === "ENOTDIR") return undefined
    throw error
  }
}

/** Creates the missing parent directories of `real`; gives the first one created, if any. */
const makeParents = async (real: string, display: string, context: ToolContext): Promise<string | undefined> => {
  const parent = path.dirname(real)
  try {
    return await fs.mkdir(parent, { recursive: true })
  } catch (error) {
    const code = errorCode(error)
    if (code !== "EEXIST" && code !== "ENOTDIR") throw error
    for (let dir = parent; ; dir = path.dirname(dir)) {
      const stat = await fs.stat(dir).catch(() => undefined)
      if (stat !== undefined && !stat.isDirectory()) {
        throw new ToolError({ message: `cannot create ${display}: ${context.fence.display(dir)} is a file, not a directory.` })
      }
      if (path.dirname(dir) === dir) throw error
    }
  }
}

const write = async (real: string, display: string, content: string, context: ToolContext): Promise<ToolOutput> => {
  const existing = await statOrUndefined(real)
  if (existing?.isDirectory() === true) throw new ToolError({ message: `${display} is a directory; write needs a file path.` })
  if (existing !== undefined && !existing.isFile()) {
    throw new ToolError({ message: `${display} is not a regular file; write replaces regular files only.` })
  }
  const data = Buffer.from(content, "utf8")
  const lines = countLines(content)
  const size = lines === 0 ? "empty" : plural(lines, "line")
  const editor = context.editorFiles?.write
  // Through an editor the disk is not what is replaced (its buffer may differ): no shortcut.
  if (editor === undefined && existing !== undefined && existing.size === data.length) {
    const current = await fs.readFile(real).catch(() => undefined)
    if (current !== undefined && data.equals(current)) return { text: `${display} already has this content (${size}); nothing written.` }
  }
  const madeDir = existing === undefined ? await makeParents(real, display, context) : undefined
  checkParent(real, display)
  if (editor !== undefined) await editor(real, content)
  else await replaceFile(real, data, { keep: existing, display })
  if (existing !== undefined) return { text: `overwrote ${display} (${size})` }
  const dirNote = madeDir === undefined ? "" : `; created directory ${context.fence.display(madeDir)}`
  return { text: `created ${display} (${size}${dirNote})` }
}

/** The write tool's implementation; `fileLocks` (the session's) keeps to one change at a time per file. */
export const makeWriteFile = (fileLocks: KeyedSemaphore) => (args: WriteArgs, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    const syntax = refuseDirectorySyntax(args.path, writeSpec.name)
    if (syntax !== undefined) return yield* syntax
    const { real, display } = yield* context.fence.resolve(args.path, "write")
    return yield* fileLocks.withPermit(real)(
      Effect.tryPromise({ try: () => write(real, display, args.content, context), catch: toolErrorFrom(writeSpec.name, display) })
    )
  })
