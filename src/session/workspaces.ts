/** The workspaces `crystal space` and `/space` offer: those of saved sessions, most recent first. */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import type { SessionError, SessionStoreShape } from "./store.ts"

export interface RecentWorkspace {
  readonly dir: string
  /** When a session there was last saved (ISO). */
  readonly updatedAt: string
  readonly sessions: number
}

const isDirectory = (dir: string): boolean => {
  try {
    return fs.statSync(dir).isDirectory()
  } catch {
    return false
  }
}

/** Deduplicated, newest first; directories that no longer exist are left out. */
export const recentWorkspaces = (store: SessionStoreShape): Effect.Effect<ReadonlyArray<RecentWorkspace>, SessionError> =>
  store.list().pipe(
    Effect.map((listing) => {
      const found = new Map<string, { updatedAt: string; sessions: number }>()
      for (const session of listing.sessions) {
        const seen = found.get(session.workspace)
        if (seen === undefined) found.set(session.workspace, { updatedAt: session.updatedAt, sessions: 1 })
        else seen.sessions++
      }
      return [...found].filter(([dir]) => isDirectory(dir)).map(([dir, info]) => ({ dir, ...info }))
    })
  )
