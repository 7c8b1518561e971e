/**
 * `crystal` and `crystal space` on a terminal: prepares the session from the flags, then hands the
 * terminal to the interactive UI (src/tui/, loaded only on this path).
 */
import * as Effect from "effect/Effect"
import { ConfigError } from "../config/errors.ts"
import { makeCrystalPaths } from "../config/paths.ts"
import { makeSessionStore } from "../session/store.ts"
import { recentWorkspaces } from "../session/workspaces.ts"
import type { SessionFlags } from "./flags.ts"
import { writeInertStderr } from "../terminal/output.ts"
import { realDirectory } from "../files/directories.ts"
import { prepareSession } from "../../layers/prepare.ts"
import { ExitCode, exitCode } from "../../layers/exit-code.ts"

const chatIn = (flags: SessionFlags, cwd: string) =>
  Effect.gen(function* () {
    if (flags.format === "json") {
      return yield* new ConfigError({ message: "--format json is for scripts: use it with `crystal run` or pipe the prompt on stdin" })
    }
    if (flags.image.length > 0) {
      return yield* new ConfigError({ message: "--image attaches images to a `crystal run` prompt; in a conversation, paste one with Ctrl+V or drop its file into the prompt" })
    }
    if (flags.plan !== undefined) {
      return yield* new ConfigError({ message: "--plan starts a `crystal run` Work turn from a plan file; it is not for a conversation" })
    }
    const prepared = yield* prepareSession(flags, cwd, process.env)
    const app = yield* Effect.promise(() => import("../tui/app.ts"))
    return yield* app.runApp(prepared, { flags, env: process.env })
  })

const reported = <E extends { readonly _tag: string; readonly message: string }>(program: Effect.Effect<number, E>): Effect.Effect<number> =>
  program.pipe(
    Effect.catchAll((error) =>
      Effect.sync(() => {
        writeInertStderr(`crystal: ${error.message}\n`)
        return exitCode(error)
      })
    )
  )

export const chatCommand = (flags: SessionFlags): Effect.Effect<number> => reported(Effect.scoped(chatIn(flags, process.cwd())))

/** DIR, or a workspace picked from the saved sessions (none saved: say so, exit 2). Undefined: the pick was dismissed. */
const chooseWorkspace = (dir: string | undefined) =>
  Effect.gen(function* () {
    if (dir !== undefined) return yield* realDirectory(dir, "workspace")
    const store = makeSessionStore(makeCrystalPaths(process.cwd(), process.env).sessionsDir)
    const recent = yield* recentWorkspaces(store)
    if (recent.length === 0) {
      return yield* new ConfigError({ message: "space: no saved sessions to pick a workspace from; name one: crystal space DIR" })
    }
    const dialogs = yield* Effect.promise(() => import("../tui/dialogs.ts"))
    return yield* dialogs.pickWorkspaceAlone(recent)
  })

export const spaceCommand = (dir: string | undefined, flags: SessionFlags): Effect.Effect<number> =>
  reported(
    Effect.scoped(
      chooseWorkspace(dir).pipe(Effect.flatMap((workspace) => (workspace === undefined ? Effect.succeed(ExitCode.ok) : chatIn(flags, workspace))))
    )
  )
