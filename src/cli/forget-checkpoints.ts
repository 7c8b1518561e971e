import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import { checkpointSettingsFrom } from "../checkpoints/settings.ts"
import { openCheckpointStore, storeDirFor } from "../checkpoints/open.ts"
import { checkpointPrefix } from "../engine/turn-checkpoints.ts"
import type { Config } from "../config/schema.ts"

/**
 * A deleted session's checkpoints are forgotten and the store pruned: content no other session's
 * checkpoint holds goes. Returns a problem to report, or undefined.
 */
export const forgetSessionCheckpoints = (home: string, workspace: string, sessionId: string, config: Config): Effect.Effect<string | undefined> =>
  Effect.gen(function* () {
    if (!fs.existsSync(storeDirFor(workspace, home))) return undefined
    const opened = yield* openCheckpointStore(workspace, home, checkpointSettingsFrom(config.checkpoints))
    if ("_tag" in opened) return undefined
    return yield* opened.forget(checkpointPrefix(sessionId)).pipe(
      // What no other checkpoint refers to goes now, not at the next session's start.
      Effect.zipRight(opened.prune()),
      Effect.as(undefined),
      Effect.catchAll((error) => Effect.succeed(`the session's checkpoints were not forgotten: ${error.message}`))
    )
  })
