/**
 * `crystal` on a terminal: prepares the session from the flags, then hands the terminal to the
 * interactive UI (src/tui/, loaded only on this path).
 */
import * as Effect from "effect/Effect"
import { ConfigError } from "../config/errors.ts"
import type { SessionFlags } from "./flags.ts"
import { writeStderr } from "./output.ts"
import { prepareSession } from "./prepare.ts"
import { ExitCode } from "./run-command.ts"

export const chatCommand = (flags: SessionFlags): Effect.Effect<number> =>
  Effect.gen(function* () {
    if (flags.format === "json") {
      return yield* new ConfigError({ message: "--format json is for scripts: use it with `crystal run` or pipe the prompt on stdin" })
    }
    const prepared = yield* prepareSession(flags, process.cwd(), process.env)
    const app = yield* Effect.promise(() => import("../tui/app.ts"))
    return yield* app.runApp(prepared, { flags, env: process.env })
  }).pipe(
    Effect.scoped,
    Effect.catchAll((error) =>
      Effect.sync(() => {
        writeStderr(`crystal: ${error.message}\n`)
        return error._tag === "ConfigError" ? ExitCode.usage : ExitCode.failure
      })
    )
  )
