/** Real workspaces and real processes for the shell tool tests; liveness is checked from outside. */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { afterEach } from "vitest"
import type { Classification } from "../../../src/approval/classification.ts"
import { makePathFence } from "../../../src/approval/path-fence.ts"
import { ToolError, type Tool, type ToolContext, type ToolFailure, type ToolOutput } from "../../../src/tools/tool.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"

const created: Array<string> = []

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => fsp.rm(dir, { recursive: true, force: true })))
})

export interface Workspace {
  readonly workspace: string
  readonly spillDir: string
  readonly context: ToolContext
  /** Texts saved through `context.spill`, by returned path. */
  readonly spilled: Map<string, string>
}

export const makeWorkspace = async (): Promise<Workspace> => {
  const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), "crystal-bash-")))
  created.push(base)
  const workspace = path.join(base, "ws")
  const spillDir = path.join(base, "spill")
  await fsp.mkdir(workspace)
  await fsp.mkdir(spillDir)
  const fence = await makePathFence(workspace, [{ dir: spillDir, access: "read" }])
  const spilled = new Map<string, string>()
  let counter = 0
  const spill = (toolName: string, text: string): Effect.Effect<string, ToolError> =>
    Effect.tryPromise({
      try: async () => {
        const file = path.join(spillDir, `${toolName}-${++counter}.txt`)
        await fsp.writeFile(file, text)
        spilled.set(file, text)
        return file
      },
      catch: (error) => new ToolError({ message: String(error) })
    })
  return { workspace, spillDir, spilled, context: { fence, sessionId: "test-session", secrets: noSecrets, spill } }
}

/**
 * Is `pid` a living process? `process.kill(pid, 0)`, and on Linux not a zombie: this machine's
 * init never reaps orphans, so a killed grandchild stays a zombie (dead, but still answering kill 0).
 */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1")
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
    return state !== "Z" && state !== "X"
  } catch {
    return process.platform !== "linux"
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it holds or `ms` passed; gives its last answer. */
export const eventually = async (check: () => boolean | Promise<boolean>, ms = 5000, every = 20): Promise<boolean> => {
  const deadline = Date.now() + ms
  for (;;) {
    if (await check()) return true
    if (Date.now() >= deadline) return false
    await sleep(every)
  }
}

/** The integers printed one per line in `text` (pids the test commands echo). */
export const pidsIn = (text: string): Array<number> =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^\d+$/.test(line))
    .map(Number)

/** Kills pids a failed test may have left behind. */
export const reap = (pids: Iterable<number>): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // gone
    }
  }
}

export const classifyForTest = (command: string): Effect.Effect<Classification, ToolFailure> =>
  Effect.succeed({ risk: "medium", authority: "execute", scope: "workspace", summary: `run \`${command}\``, paths: [], grantKey: `bash:${command}` })

/** Validates `args` with the tool's own schema (as the engine does), then runs the tool. */
export const runTool = (tool: Tool, args: unknown, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
  // The erased `Tool` types its fields' context as unknown; parameter schemas built by params.ts need none.
  (Schema.decodeUnknown(tool.parameters.schema)(args) as Effect.Effect<Schema.Struct.Type<Schema.Struct.Fields>, ParseError>).pipe(
    Effect.mapError((error) => new ToolError({ message: `bad arguments: ${error.message}` })),
    Effect.flatMap((decoded) => tool.run(decoded, context))
  )
