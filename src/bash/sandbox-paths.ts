/** Path checks the sandbox's arguments are built from (sandbox.ts, sandbox-kernel.ts, sandbox-sockets.ts). */
import * as fs from "node:fs"

export const existingDir = (dir: string): boolean => {
  try {
    return fs.statSync(dir).isDirectory()
  } catch {
    return false
  }
}

/** The real path, symbolic links resolved, or the path itself when it does not exist. */
export const realOrSelf = (target: string): string => {
  try {
    return fs.realpathSync(target)
  } catch {
    return target
  }
}
