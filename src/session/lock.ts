/**
 * One crystal process per session: a lock file next to the session, made with O_EXCL, holding
 * the owner's pid. A second process opening the same session is refused with a message naming
 * the owner; a lock whose owner is dead (a SIGKILLed crystal) is taken over.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Schema from "effect/Schema"
import { processRuns } from "../files/process-alive.ts"

/** The session is open in another crystal process (exit code 3: try again once it is closed there). */
export class SessionLocked extends Schema.TaggedError<SessionLocked>()("SessionLocked", {
  id: Schema.String,
  pid: Schema.Number
}) {
  override get message(): string {
    return `session ${this.id} is open in another crystal process (pid ${this.pid}); close it there first, or start a new session`
  }
}


export type LockResult = { readonly _tag: "Locked"; readonly release: () => void } | { readonly _tag: "Busy"; readonly pid: number }

export const lockFile = (dir: string, id: string): string => path.join(dir, `.${id}.lock`)

/** The pid of a live process other than this one that holds the session, if any. */
export const lockHolder = (dir: string, id: string): number | undefined => {
  try {
    const owner = Number(fs.readFileSync(lockFile(dir, id), "utf8").trim())
    return Number.isInteger(owner) && owner > 0 && owner !== process.pid && processRuns(owner) ? owner : undefined
  } catch {
    return undefined
  }
}

/** Lock files this process holds: a lock with our own pid is ours only if it is listed here. */
const heldHere = new Set<string>()

export const acquireSessionLock = (dir: string, id: string): LockResult => {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = lockFile(dir, id)
  // Held by another part of this process (a session being reopened, a late title): not free.
  if (heldHere.has(file)) return { _tag: "Busy", pid: process.pid }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx", mode: 0o600 })
      heldHere.add(file)
      let released = false
      return {
        _tag: "Locked",
        release: () => {
          if (released) return
          released = true
          heldHere.delete(file)
          try {
            if (fs.readFileSync(file, "utf8").trim() === String(process.pid)) fs.rmSync(file, { force: true })
          } catch {
            // already gone
          }
        }
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      const owner = Number(fs.readFileSync(file, "utf8").trim())
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processRuns(owner)) return { _tag: "Busy", pid: owner }
      // The owner is gone without cleaning up: take the lock over.
      fs.rmSync(file, { force: true })
    }
  }
  throw new Error(`could not take the lock ${file}`)
}
