/**
 * The shell tools of one session: their definitions now, their implementation on the first shell
 * call (no start-up cost), running background tasks on the session's BackgroundBash service.
 */
import * as Effect from "effect/Effect"
import type { Config } from "../config/schema.ts"
import {
  DEFAULT_BASH_TIMEOUT_SECONDS,
  DEFAULT_GRACE_MS,
  DEFAULT_LOG_BUFFER_BYTES,
  DEFAULT_MAX_TASKS,
  backgroundTimeoutSeconds,
  defaultShell
} from "../bash/limits.ts"
import type { BackgroundBashShape } from "../bash/background-bash.ts"
import { BASH_OUTPUT_CAPS, bashSpecs, type BashSettings, type CommandClassifier } from "./bash-specs.ts"
import { defineTool, type Tool } from "./tool.ts"

/** The settings the shell tools and the session's BackgroundBash service share, from config.json. */
export const bashSettings = (config: Pick<Config, "bashTimeoutSeconds" | "backgroundBashTimeoutSeconds">): BashSettings => ({
  bashTimeoutSeconds: config.bashTimeoutSeconds ?? DEFAULT_BASH_TIMEOUT_SECONDS,
  backgroundTimeoutSeconds: backgroundTimeoutSeconds(config.backgroundBashTimeoutSeconds),
  bufferBytes: DEFAULT_LOG_BUFFER_BYTES,
  maxTasks: DEFAULT_MAX_TASKS,
  graceMs: DEFAULT_GRACE_MS,
  caps: BASH_OUTPUT_CAPS,
  shell: defaultShell()
})

export const sessionBashTools = (
  settings: BashSettings,
  background: BackgroundBashShape,
  classifyCommand: CommandClassifier
): Effect.Effect<ReadonlyArray<Tool>> =>
  Effect.gen(function* () {
    const specs = bashSpecs(settings, classifyCommand)
    const runners = yield* Effect.cached(
      Effect.promise(() => import("./bash-tools.ts")).pipe(
        Effect.map((tools) => tools.makeBashRunners({
          background,
          bashTimeoutSeconds: settings.bashTimeoutSeconds,
          home: settings.home,
          ...(settings.env === undefined ? {} : { env: settings.env })
        }))
      )
    )
    return [
      defineTool({ ...specs.bash, run: (args, context) => Effect.flatMap(runners, (run) => run.bash(args, context)) }),
      defineTool({ ...specs.bashStart, run: (args, context) => Effect.flatMap(runners, (run) => run.bashStart(args, context)) }),
      defineTool({ ...specs.bashStatus, run: (args, context) => Effect.flatMap(runners, (run) => run.bashStatus(args, context)) }),
      defineTool({ ...specs.bashLogs, run: (args, context) => Effect.flatMap(runners, (run) => run.bashLogs(args, context)) }),
      defineTool({ ...specs.bashStop, run: (args, context) => Effect.flatMap(runners, (run) => run.bashStop(args, context)) })
    ]
  })
