/**
 * writeFileAtomic's temp files (`.NAME.PID.MS.N.tmp`) live for milliseconds; one left behind was
 * written by a process killed between write and rename. At start, those of processes that no
 * longer run (or older than a day, when the pid may have been reused) are removed. Nothing else
 * is touched: other `.tmp` names are not ours. At start they are removed off the first request's
 * way (scheduleOrphanedTempRemoval): the folder scan waits for a timer, or the exit if that comes first.
 */
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { processRuns } from "./process-alive.ts"

const tempName = /^\..+\.(\d+)\.(\d+)\.\d+\.tmp$/

const dayMs = 24 * 60 * 60 * 1000

/** Whether a name is an orphaned temp file at `now`; exported for tests. */
export const isOrphanedTemp = (name: string, now: number, runs: (pid: number) => boolean = processRuns): boolean => {
  const match = tempName.exec(name)
  if (match === null) return false
  const pid = Number(match[1])
  const written = Number(match[2])
  return pid !== process.pid && (now - written > dayMs || !runs(pid))
}

/** Removes the orphaned temp files of `dirs`; returns the files removed. Never fails. */
export const removeOrphanedTemps = async (dirs: ReadonlyArray<string>, now: number = Date.now()): Promise<ReadonlyArray<string>> => {
  const removed: Array<string> = []
  for (const dir of dirs) {
    const names = await fs.readdir(dir).catch(() => [] as Array<string>)
    for (const name of names) {
      if (!isOrphanedTemp(name, now)) continue
      const file = path.join(dir, name)
      const gone = await fs.rm(file, { force: true }).then(
        () => true,
        () => false
      )
      if (gone) removed.push(file)
    }
  }
  return removed
}

/** removeOrphanedTemps, synchronously: for the way out of a process, where nothing async runs. */
export const removeOrphanedTempsSync = (dirs: ReadonlyArray<string>, now: number = Date.now()): ReadonlyArray<string> => {
  const removed: Array<string> = []
  for (const dir of dirs) {
    let names: Array<string>
    try {
      names = fsSync.readdirSync(dir)
    } catch {
      continue
    }
    for (const name of names) {
      if (!isOrphanedTemp(name, now)) continue
      const file = path.join(dir, name)
      try {
        fsSync.rmSync(file, { force: true })
        removed.push(file)
      } catch {
        // Someone else's to remove, or gone meanwhile.
      }
    }
  }
  return removed
}

/**
 * Removes the orphaned temp files of `dirs` after `delayMs` (a timer that keeps no process alive),
 * once the first request is on its way; a process that exits sooner removes them on its way out.
 */
export const scheduleOrphanedTempRemoval = (dirs: ReadonlyArray<string>, delayMs = 100): void => {
  let due = true
  const onExit = (): void => {
    if (!due) return
    due = false
    removeOrphanedTempsSync(dirs)
  }
  process.on("exit", onExit)
  setTimeout(() => {
    if (!due) return
    due = false
    process.off("exit", onExit)
    void removeOrphanedTemps(dirs)
  }, delayMs).unref()
}
