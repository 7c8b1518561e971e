/**
 * Folders that get no checkpoints: the whole file system, the home folder (opencode's snapshots of
 * $HOME filled disks), and a folder holding the Crystal home or inside it (the store would record
 * itself). The reason is one line for the session's note.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import { isWithin } from "../files/within.ts"
import type { CheckpointRefusal } from "./store.ts"

const real = (dir: string): string => {
  try {
    return fs.realpathSync(dir)
  } catch {
    return dir
  }
}

const refused = (reason: string): CheckpointRefusal => ({ _tag: "Refused", reason: `checkpoints are off: ${reason}` })

/** Why `workspace` (a real path) gets no checkpoints, or undefined when it may have them. */
export const refusalFor = (workspace: string, crystalHome: string, home: string = os.homedir()): CheckpointRefusal | undefined => {
  const homeDir = real(home)
  const crystal = real(crystalHome)
  if (workspace === "/") return refused("the workspace is / (the whole file system); start Crystal in a project folder")
  if (workspace === homeDir) return refused(`the workspace is your home folder (${workspace}); start Crystal in a project folder`)
  if (isWithin(workspace, crystal)) return refused(`the workspace holds the Crystal home (${crystal})`)
  if (isWithin(crystal, workspace)) return refused(`the workspace is inside the Crystal home (${crystal})`)
  return undefined
}
