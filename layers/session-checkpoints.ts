/**
 * The session's checkpoints (issue 25): the turn integration over the workspace's store, opened on
 * the first change; and, when the workspace already has a store, its pruning in the background a
 * moment after the session starts (by whole checkpoints, oldest first: src/checkpoints/prune.ts).
 */
import * as fs from "node:fs"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { BackgroundBashShape } from "../src/bash/background-bash.ts"
import { openCheckpointStore, storeDirFor } from "../src/checkpoints/open.ts"
import { refusalFor } from "../src/checkpoints/refusal.ts"
import type { CheckpointStoreShape } from "../src/checkpoints/store.ts"
import type { ConversationShape } from "../src/engine/conversation.ts"
import { makeTurnCheckpoints, type TurnCheckpointsShape } from "../src/engine/turn-checkpoints.ts"
import { checkpointSettingsFrom } from "../src/checkpoints/settings.ts"
import type { PreparedSession } from "./prepare.ts"

/**
 * Long enough for the first request to be on its way (the store's work is synchronous), short
 * enough that a `crystal run` of a few seconds prunes too; pruning is never urgent.
 */
const pruneDelay = Duration.seconds(1)

export const sessionCheckpoints = (
  prepared: PreparedSession,
  parts: { readonly conversation: ConversationShape; readonly background: BackgroundBashShape; readonly note: (text: string) => Effect.Effect<void> }
): Effect.Effect<TurnCheckpointsShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const workspace = prepared.document.workspace
    const home = prepared.paths.home
    const settings = checkpointSettingsFrom(prepared.config.checkpoints)
    // The store's change feed holds inotify watches: released when the session's scope closes.
    let opened: CheckpointStoreShape | undefined
    yield* Effect.addFinalizer(() => opened?.close?.() ?? Effect.void)
    const checkpoints = yield* makeTurnCheckpoints({
      sessionId: prepared.document.id,
      conversation: parts.conversation,
      open: Effect.tap(openCheckpointStore(workspace, home, settings), (store) => {
        if (!("_tag" in store)) opened = store
      }),
      note: parts.note,
      backgroundRunning: Effect.map(parts.background.list, (tasks) => tasks.some((task) => task.state.status === "running"))
    })
    if (refusalFor(workspace, home) === undefined && fs.existsSync(storeDirFor(workspace, home))) {
      yield* Effect.forkScoped(
        Effect.sleep(pruneDelay).pipe(
          Effect.zipRight(checkpoints.store),
          Effect.flatMap((store) => (store === undefined ? Effect.void : Effect.ignore(store.prune()))),
          Effect.interruptible
        )
      )
    }
    return checkpoints
  })
