import * as path from "node:path"

/** Whether `candidate` is `root` or lies under it (both absolute and normalised). */
export const isWithin = (root: string, candidate: string): boolean => {
  if (candidate === root) return true
  const prefix = root.endsWith(path.sep) ? root : root + path.sep
  return candidate.startsWith(prefix)
}

/** Whether `candidate` lies under `root` and is not `root` itself (both absolute and normalised). */
export const isStrictlyWithin = (root: string, candidate: string): boolean => candidate !== root && isWithin(root, candidate)
