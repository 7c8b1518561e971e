/**
 * The shell tools of one session: their definitions now, their implementation and the session's
 * BackgroundBash service on the first shell call (neither costs start-up time), with the service
 * made in the session's scope so that closing the session kills every task.
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { Config } from "../config/schema.ts"
import {
  DEFAULT_BASH_TIMEOUT_SECONDS,
  DEFAULT_GRACE_MS,
  DEFAULT_LOG_BUFFER_BYTES,
  DEFAULT_MAX_TASKS,
  backgroundTimeoutSeconds,
  defaultShell
} from "../bash/limits.ts"
import type { BackgroundBashShape } from "../bash/background.ts"
import { BASH_OUTPUT_CAPS, bashSpecs, type BashSettings, type CommandClassifier } from "./bash-specs.ts"
import { defineTool, type Tool } from "./tool.ts"

export const sessionBashTools = (
  config: Pick<Config, "bashTimeoutSeconds" | "backgroundBashTimeoutSeconds" | "providers" | "shellEnv">,
  scope: Scope.Scope,
  classifyCommand: CommandClassifier,
  /** Told about the BackgroundBash service once it exists (the terminal's status line counts running tasks). */
  onBackground?: (service: BackgroundBashShape) => void
): Effect.Effect<ReadonlyArray<Tool>> =>
  Effect.gen(function* () {
    const settings: BashSettings = {
      bashTimeoutSeconds: config.bashTimeoutSeconds ?? DEFAULT_BASH_TIMEOUT_SECONDS,
      backgroundTimeoutSeconds: backgroundTimeoutSeconds(config.backgroundBashTimeoutSeconds),
      bufferBytes: DEFAULT_LOG_BUFFER_BYTES,
      maxTasks: DEFAULT_MAX_TASKS,
      graceMs: DEFAULT_GRACE_MS,
      caps: BASH_OUTPUT_CAPS,
      shell: defaultShell()
    }
    const specs = bashSpecs(settings, classifyCommand)
    const runners = yield* Effect.cached(
      Effect.gen(function* () {
        const [tools, service, shellEnv] = yield* Effect.promise(() =>
          Promise.all([import("./bash-tools.ts"), import("../bash/background.ts"), import("../bash/shell-env.ts")])
        )
        // Without the provider keys Crystal knows (README "Secrets").
        const env = shellEnv.shellEnvironment(config, process.env)
        const background = yield* service.makeBackgroundBash({
          env,
          timeoutSeconds: settings.backgroundTimeoutSeconds,
          maxTasks: settings.maxTasks,
          bufferBytes: settings.bufferBytes,
          graceMs: settings.graceMs,
          shell: settings.shell
        }).pipe(Scope.extend(scope))
        onBackground?.(background)
        return tools.makeBashRunners({ background, bashTimeoutSeconds: settings.bashTimeoutSeconds, env })
      })
    )
    return [
      defineTool({ ...specs.bash, run: (args, context) => Effect.flatMap(runners, (run) => run.bash(args, context)) }),
      defineTool({ ...specs.bashStart, run: (args, context) => Effect.flatMap(runners, (run) => run.bashStart(args, context)) }),
      defineTool({ ...specs.bashStatus, run: (args, context) => Effect.flatMap(runners, (run) => run.bashStatus(args, context)) }),
      defineTool({ ...specs.bashLogs, run: (args, context) => Effect.flatMap(runners, (run) => run.bashLogs(args, context)) }),
      defineTool({ ...specs.bashStop, run: (args, context) => Effect.flatMap(runners, (run) => run.bashStop(args, context)) })
    ]
  })
