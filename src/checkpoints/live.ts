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
  /**
   * Workspace-relative folders ("" for the workspace itself) a restore is writing into: a kill
   * there leaves `.crystal-restore.PID.MS.N.tmp` temps, which the next open removes (see readLive).
   */
  readonly restoringIn?: ReadonlyArray<string>
}

/** Each open store of a process has its own file (`PID.N.json`): two stores of one workspace in one process do not overwrite each other. */
let opened = 0
export const liveFileFor = (liveDir: string): string => path.join(liveDir, `${process.pid}.${opened++}.json`)

export const writeLive = (file: string, tmpDir: string, state: LiveState): void => {
  const liveDir = path.dirname(file)
  fs.mkdirSync(liveDir, { recursive: true, mode: 0o700 })
  const temp = path.join(tmpDir, tempName("live"))
  try {
    fs.writeFileSync(temp, JSON.stringify({ ids: state.ids, writingSince: state.writingSince ?? null, ...(state.restoringIn === undefined ? {} : { restoringIn: state.restoringIn }) }), { mode: 0o600, flag: "wx" })
    fs.renameSync(temp, file)
  } catch (error) {
    fs.rmSync(temp, { force: true })
    throw error
  }
}

const isRealFolder = (dir: string): boolean => {
  try {
    return fs.lstatSync(dir).isDirectory()
  } catch {
    return false
  }
}

/**
 * Removes the restore temps (`.crystal-restore.PID.MS.N.tmp`, regular files only, links never
 * followed) that the dead process `pid` may have left in the folders its live file names. Only
 * folders inside `workspace` reached through real folders (no link on the way) are looked in.
 */
const removeRestoreTemps = (workspace: string, pid: number, file: string): void => {
  let folders: unknown
  try {
    folders = (JSON.parse(fs.readFileSync(file, "utf8")) as { restoringIn?: unknown }).restoringIn
  } catch {
    return
  }
  if (!Array.isArray(folders)) return
  const pattern = new RegExp(`^\\.crystal-restore\\.${pid}\\.\\d+\\.\\d+\\.tmp$`)
  for (const folder of folders) {
    if (typeof folder !== "string" || folder.startsWith("/") || folder.includes("\0")) continue
    const parts = folder === "" ? [] : folder.split("/")
    if (parts.some((part) => part === "" || part === "." || part === "..")) continue
    let dir = workspace
    let inside = isRealFolder(dir)
    for (const part of parts) {
      if (!inside) break
      dir = path.join(dir, part)
      inside = isRealFolder(dir)
    }
    if (!inside) continue
    let names: Array<string>
    try {
      names = fs.readdirSync(dir)
    } catch {
      continue
    }
    for (const name of names) {
      if (!pattern.test(name)) continue
      const temp = path.join(dir, name)
      try {
        if (fs.lstatSync(temp).isFile()) fs.unlinkSync(temp)
      } catch {
        // Gone already.
      }
    }
  }
}

/**
 * The states of running processes; the files of processes that no longer run are removed, after
 * (given the workspace) the restore temps those processes left in the workspace.
 */
export const readLive = (liveDir: string, workspace?: string, runs: (pid: number) => boolean = processRuns): Array<LiveState> => {
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
      if (workspace !== undefined) removeRestoreTemps(workspace, pid, file)
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
