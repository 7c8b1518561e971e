/**
 * writeFileAtomic's temp files (`.NAME.PID.MS.N.tmp`) live for milliseconds; one left behind was
 * written by a process killed between write and rename. At start, those of processes that no
 * longer run (or older than a day, when the pid may have been reused) are removed. Nothing else
 * is touched: other `.tmp` names are not ours.
 */
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
