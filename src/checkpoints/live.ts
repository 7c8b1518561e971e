/**
 * What a running process's open store needs pruning to keep, in live/<pid>.<n>.json: its last snapshot (the stat
 * index names that snapshot's objects), the snapshots it took and has not passed to keep() yet,
 * and, while a snapshot is writing objects, since when (objects written since then are not yet
 * reachable from any id). Pruning in any process keeps all of that for processes that still run
 * and removes the files of processes that do not.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { processRuns } from "../files/process-alive.ts"
import { isObjectId, tempName, type ObjectId } from "./objects.ts"

export interface LiveState {
  readonly ids: ReadonlyArray<ObjectId>
  /** Epoch ms a snapshot started writing objects, if one is under way. */
  readonly writingSince: number | undefined
}

/** Each open store of a process has its own file (`PID.N.json`): two stores of one workspace in one process do not overwrite each other. */
let opened = 0
export const liveFileFor = (liveDir: string): string => path.join(liveDir, `${process.pid}.${opened++}.json`)

export const writeLive = (file: string, tmpDir: string, state: LiveState): void => {
  const liveDir = path.dirname(file)
  fs.mkdirSync(liveDir, { recursive: true, mode: 0o700 })
  const temp = path.join(tmpDir, tempName("live"))
  try {
    fs.writeFileSync(temp, JSON.stringify({ ids: state.ids, writingSince: state.writingSince ?? null }), { mode: 0o600, flag: "wx" })
    fs.renameSync(temp, file)
  } catch (error) {
    fs.rmSync(temp, { force: true })
    throw error
  }
}

/** The states of running processes; the files of processes that no longer run are removed. */
export const readLive = (liveDir: string, runs: (pid: number) => boolean = processRuns): Array<LiveState> => {
  let names: Array<string>
  try {
    names = fs.readdirSync(liveDir)
  } catch {
    return []
  }
  const result: Array<LiveState> = []
  for (const name of names) {
    const match = /^(\d+)\.\d+\.json$/.exec(name)
    if (match === null) continue
    const pid = Number(match[1])
    const file = path.join(liveDir, name)
    if (pid !== process.pid && !runs(pid)) {
      fs.rmSync(file, { force: true })
      continue
    }
    try {
      const value = JSON.parse(fs.readFileSync(file, "utf8")) as { ids?: unknown; writingSince?: unknown }
      const ids = Array.isArray(value.ids) ? value.ids.filter((id): id is string => typeof id === "string" && isObjectId(id)) : []
      result.push({ ids, writingSince: typeof value.writingSince === "number" ? value.writingSince : undefined })
    } catch {
      // Being replaced this instant, or damaged: its process writes it again on its next snapshot.
    }
  }
  return result
}
