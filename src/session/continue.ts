/**
 * `--continue` picks the newest session of a workspace. A session file that cannot be read or
 * parsed may be that newest session: continuing an older one instead (or saying there is none)
 * would hide it. Such a file is named with the reason whenever it may belong to the workspace
 * (its text names the workspace, or it cannot be read at all) and is newer than the session
 * that would be continued.
 */
import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { SessionDocument } from "./document.ts"
import { SessionError, type SessionStoreShape, type UnreadableSession } from "./store.ts"

const mayBelongTo = async (unreadable: UnreadableSession, workspace: string, newerThan: number): Promise<boolean> => {
  const modified = await fs.stat(unreadable.file).then(
    (stat) => stat.mtimeMs,
    () => Number.POSITIVE_INFINITY
  )
  if (modified <= newerThan) return false
  const text = await fs.readFile(unreadable.file, "utf8").catch(() => undefined)
  if (text === undefined) return true
  const named = /"workspace"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text)?.[1]
  if (named === undefined) return true
  try {
    return JSON.parse(named) === workspace
  } catch {
    return true
  }
}

/** The newest session of `workspace`, or none; fails naming a newer session file that does not load. */
export const latestSessionOrUnreadable = (
  store: SessionStoreShape,
  workspace: string
): Effect.Effect<Option.Option<SessionDocument>, SessionError> =>
  Effect.gen(function* () {
    const listing = yield* store.list(workspace)
    const latest = listing.sessions[0]
    const newerThan = latest === undefined ? Number.NEGATIVE_INFINITY : Date.parse(latest.updatedAt)
    for (const unreadable of listing.unreadable) {
      if (yield* Effect.promise(() => mayBelongTo(unreadable, workspace, newerThan))) {
        return yield* new SessionError({
          message: `the newest session may be ${unreadable.reason.startsWith(unreadable.file) ? unreadable.reason : `${unreadable.file}: ${unreadable.reason}`}; move it away, or pick a session with --resume ID`
        })
      }
    }
    return latest === undefined ? Option.none() : Option.some(yield* store.load(latest.id))
  })
