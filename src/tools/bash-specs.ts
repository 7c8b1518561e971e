/**
 * The shell tools' definitions (SPEC T5, T6): what the model is told and how a call is classified.
 * Loaded at start-up, so it imports nothing that spawns: the implementations (bash-tools.ts,
 * src/bash/) load on a tool's first run.
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { Classification } from "../approval/classification.ts"
import { DEFAULT_LOG_READ_BYTES } from "../bash/limits.ts"
import * as P from "./params.ts"
import { toolSpec, workModeOnly, type ToolContext, type ToolFailure } from "./tool.ts"
import { formatBytes } from "../text/bytes.ts"

/** How much of a foreground command's output the model sees: the beginning and, mostly, the end. */
export interface HeadTailCaps {
  readonly headLines: number
  readonly headBytes: number
  readonly tailLines: number
  readonly tailBytes: number
  /** Lines longer than this are cut in the returned text (the spilled text keeps them whole). */
  readonly maxLineChars: number
}

export const BASH_OUTPUT_CAPS: HeadTailCaps = {
  headLines: 100,
  headBytes: 8 * 1024,
  tailLines: 300,
  tailBytes: 24 * 1024,
  maxLineChars: 2000
}

export const BASH_LOGS_MAX_BYTES = 64 * 1024

/** A configured limit for a description: "120 s", "10800 s (3 h)". */
const formatLimit = (seconds: number): string =>
  seconds >= 3600 && seconds % 3600 === 0 ? `${seconds} s (${seconds / 3600} h)` : `${seconds} s`

const noPaths = (risk: Classification["risk"], authority: Classification["authority"], summary: string, grantKey: string): Classification => ({
  risk,
  authority,
  scope: "workspace",
  summary,
  paths: [],
  grantKey
})

export interface BashSettings {
  /** Foreground time limit (config `bashTimeoutSeconds`, default 120). */
  readonly bashTimeoutSeconds: number
  /** Background timer, or null for none. */
  readonly backgroundTimeoutSeconds: number | null
  readonly bufferBytes: number
  readonly maxTasks: number
  readonly graceMs: number
  readonly caps: HeadTailCaps
  /** Path of the shell commands run in. */
  readonly shell: string
  /** The commands' environment (src/bash/shell-env.ts: without provider keys); default Crystal's own. */
  readonly env?: NodeJS.ProcessEnv
  /** Crystal's home, where the first command writes this crystal's pid file (src/bash/containment.ts). */
  readonly home?: string | undefined
}

/** The shell tools' names, each written once; the keys are those of `bashSpecs`'s result. */
export const bashToolNames = {
  bash: "bash",
  bashStart: "bash_start",
  bashStatus: "bash_status",
  bashLogs: "bash_logs",
  bashStop: "bash_stop"
} as const

/** The command classifier (approval/); bash and bash_start classify with it. */
export type CommandClassifier = (command: string, context: ToolContext) => Effect.Effect<Classification, ToolFailure>

export const bashSpecs = (settings: BashSettings, classifyCommand: CommandClassifier) => {
  const shell = path.basename(settings.shell)
  const caps = settings.caps
  const backgroundLimit = settings.backgroundTimeoutSeconds === null ? "" : ` after ${formatLimit(settings.backgroundTimeoutSeconds)} and`
  const command = P.object({ command: P.string("Shell command.") })
  return {
    bash: toolSpec({
      name: bashToolNames.bash,
      modes: workModeOnly,
      description:
        `Run a shell command (${shell} -c) in the workspace and wait for it; killed after ${formatLimit(settings.bashTimeoutSeconds)}. stdin is closed. ` +
        "The result starts with `exit N` (or the signal / timeout), then stdout and stderr interleaved, capped to the first " +
        `${caps.headLines} and last ${caps.tailLines} lines (${formatBytes(caps.headBytes + caps.tailBytes)}); the full output is ` +
        "then saved to a file you can read. Processes still running when the command ends are killed: use bash_start for " +
        "servers and watchers.",
      parameters: command,
      classify: (args, context) => classifyCommand(args.command, context)
    }),
    bashStart: toolSpec({
      name: bashToolNames.bashStart,
      modes: workModeOnly,
      description:
        `Start a shell command (${shell} -c) in the background in the workspace; returns a task id (bg1, bg2, …) at once. ` +
        `stdin is closed; stdout and stderr go to a ${formatBytes(settings.bufferBytes)} buffer (oldest output dropped first). ` +
        `Tasks are killed${backgroundLimit} when the session ends. At most ${settings.maxTasks} run at once; finished tasks stay ` +
        "queryable and free their slot.",
      parameters: command,
      classify: (args, context) => classifyCommand(args.command, context)
    }),
    bashStatus: toolSpec({
      name: bashToolNames.bashStatus,
      modes: workModeOnly,
      description: "State of a background task (running, exited with code, stopped, timed out, killed by a signal), or of all tasks without id.",
      parameters: P.object({ id: P.optional(P.string("Task id, e.g. bg1.")) }),
      classify: (args) => Effect.succeed(noPaths("low", "read", `${bashToolNames.bashStatus} ${args.id ?? "(all)"}`, bashToolNames.bashStatus))
    }),
    bashLogs: toolSpec({
      name: bashToolNames.bashLogs,
      modes: workModeOnly,
      description:
        "Read a background task's output (stdout and stderr interleaved) by byte offset. Without offset: the last `limit` bytes. " +
        "The first line gives the range shown, the oldest offset still held and the next offset: pass it as offset to read " +
        "only newer output.",
      parameters: P.object({
        id: P.string("Task id, e.g. bg1."),
        offset: P.optional(P.integer("Byte offset to read from.", { minimum: 0 })),
        limit: P.optional(P.integer(`Bytes to read (default ${DEFAULT_LOG_READ_BYTES}).`, { minimum: 64, maximum: BASH_LOGS_MAX_BYTES }))
      }),
      classify: (args) => Effect.succeed(noPaths("low", "read", `${bashToolNames.bashLogs} ${args.id}`, bashToolNames.bashLogs))
    }),
    bashStop: toolSpec({
      name: bashToolNames.bashStop,
      modes: workModeOnly,
      description: `Stop a background task: its whole process tree gets SIGTERM, then SIGKILL after ${settings.graceMs / 1000} s.`,
      parameters: P.object({ id: P.string("Task id, e.g. bg1.") }),
      classify: (args) => Effect.succeed(noPaths("low", "execute", `stop background task ${args.id}`, bashToolNames.bashStop))
    })
  }
}

export type BashSpecs = ReturnType<typeof bashSpecs>
