/** Real temp workspaces for the file tool tests: files on disk, a real path fence, a real spill directory. */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { makePathFence } from "../../../src/approval/path-fence.ts"
import { makeBuiltinTools } from "../../../src/tools/builtin.ts"
import { SearchIndexCache } from "../../../src/search/cache.ts"
import { ToolError, type Tool, type ToolContext, type ToolFailure, type ToolOutput } from "../../../src/tools/tool.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"

export type Tree = Readonly<Record<string, string | Uint8Array>>

/** Writes files (creating directories); a key ending in `/` makes an empty directory. */
export const writeTree = async (base: string, files: Tree): Promise<void> => {
  for (const [name, content] of Object.entries(files)) {
    const full = path.join(base, name)
    if (name.endsWith("/")) {
      await fs.mkdir(full, { recursive: true })
      continue
    }
    await fs.mkdir(path.dirname(full), { recursive: true })
    await fs.writeFile(full, content)
  }
}

export interface Fixture {
  /** Temp directory holding the workspace, the spill directory and an `outside` directory. */
  readonly base: string
  readonly workspace: string
  readonly outside: string
  readonly spillDir: string
  readonly context: ToolContext
  /** Texts saved through `context.spill`, by returned path. */
  readonly spilled: Map<string, string>
}

const created: Array<string> = []

export const makeFixture = async (files: Tree = {}, outsideFiles: Tree = {}): Promise<Fixture> => {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "crystal-tools-")))
  created.push(base)
  const workspace = path.join(base, "ws")
  const outside = path.join(base, "outside")
  const spillDir = path.join(base, "spill")
  await fs.mkdir(workspace)
  await fs.mkdir(outside)
  await fs.mkdir(spillDir)
  await writeTree(workspace, files)
  await writeTree(outside, outsideFiles)
  const fence = await makePathFence(workspace, [{ dir: spillDir, access: "read" }])
  const spilled = new Map<string, string>()
  let counter = 0
  const spill = (toolName: string, text: string): Effect.Effect<string, ToolError> =>
    Effect.tryPromise({
      try: async () => {
        const file = path.join(spillDir, `${toolName}-${++counter}.txt`)
        await fs.writeFile(file, text)
        spilled.set(file, text)
        return file
      },
      catch: (error) => new ToolError({ message: String(error) })
    })
  return { base, workspace, outside, spillDir, spilled, context: { fence, sessionId: "test-session", secrets: noSecrets, spill } }
}

export const cleanupFixtures = async (): Promise<void> => {
  for (const dir of created.splice(0)) await fs.rm(dir, { recursive: true, force: true })
}

/** Validates `args` with the tool's own schema (as the engine does), then runs the tool. */
export const runEffect = (tool: Tool, args: unknown, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
  // The erased `Tool` types its fields' context as unknown; parameter schemas built by params.ts need none.
  (Schema.decodeUnknown(tool.parameters.schema)(args) as Effect.Effect<Schema.Struct.Type<Schema.Struct.Fields>, ParseError>).pipe(
    Effect.mapError((error) => new ToolError({ message: `bad arguments: ${error.message}` })),
    Effect.flatMap((decoded) => tool.run(decoded, context))
  )

export const run = async (tool: Tool, args: unknown, context: ToolContext): Promise<string> => (await Effect.runPromise(runEffect(tool, args, context))).text

/** Runs a tool that must fail; gives the model-facing message. */
export const runError = async (tool: Tool, args: unknown, context: ToolContext): Promise<string> => {
  const result = await Effect.runPromise(Effect.either(runEffect(tool, args, context)))
  if (result._tag === "Right") throw new Error(`expected ${tool.name} to fail, got:\n${result.right.text}`)
  return result.left.message
}

/** A built-in tool as a new session gets it: the definition from specs.ts, the implementation imported on first run. */
export const builtinTool = (name: string): Tool => {
  const tool = makeBuiltinTools(new SearchIndexCache()).find((candidate) => candidate.name === name)
  if (tool === undefined) throw new Error(`no built-in tool ${name}`)
  return tool
}
