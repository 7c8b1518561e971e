/**
 * Puts workspace paths back to their state in a snapshot, writing bytes read from the store (no
 * git, no attributes, no filters). Removals first, deepest first; then writes, shallowest first,
 * each through a hidden temp in the target's folder renamed over it, so a reader never sees a torn
 * file. A folder on the way that is now a link or a file is replaced only when it is itself one
 * of the paths asked for; otherwise the restore stops with an error naming it, so a link can never
 * redirect a write out of the workspace. Gitignored paths are never written or removed, nor is a
 * file too large to have been recorded.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { isIgnored } from "./ignored.ts"
import { tempName, type ObjectId, type ObjectStore } from "./objects.ts"
import { lookup, type TreeEntry } from "./tree.ts"

export const checkRelativePath = (relative: string): string | undefined => {
  if (relative === "" || relative.startsWith("/") || relative.includes("\0")) return `"${relative}" is not a workspace-relative path`
  if (relative.split("/").some((part) => part === "" || part === "." || part === "..")) return `"${relative}" is not a workspace-relative path`
  return undefined
}

const lstatOrUndefined = (file: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(file)
  } catch {
    return undefined
  }
}

/** Folders between the workspace and `relative` must be real folders (created when missing). */
const ensureParents = (workspace: string, relative: string): void => {
  const parts = relative.split("/")
  let dir = workspace
  for (let i = 0; i < parts.length - 1; i++) {
    dir = path.join(dir, parts[i] as string)
    const stat = lstatOrUndefined(dir)
    if (stat === undefined) fs.mkdirSync(dir, { mode: 0o755 })
    else if (!stat.isDirectory()) throw new Error(`cannot restore ${relative}: ${parts.slice(0, i + 1).join("/")} is no longer a folder`)
  }
}

const writeEntry = (objects: ObjectStore, workspace: string, relative: string, entry: TreeEntry & { kind: "file" | "symlink" }): void => {
  ensureParents(workspace, relative)
  const target = path.join(workspace, relative)
  const existing = lstatOrUndefined(target)
  if (existing?.isDirectory()) {
    try {
      fs.rmdirSync(target)
    } catch {
      throw new Error(`cannot restore ${relative}: a folder that is not empty is there now`)
    }
  }
  const temp = path.join(path.dirname(target), tempName("crystal-restore"))
  try {
    if (entry.kind === "symlink") fs.symlinkSync(entry.target, temp)
    else {
      fs.writeFileSync(temp, objects.read(entry.id), { flag: "wx", mode: entry.mode })
      fs.chmodSync(temp, entry.mode)
    }
    fs.renameSync(temp, target)
  } catch (error) {
    fs.rmSync(temp, { force: true })
    throw error
  }
}

/**
 * True when every folder between the workspace and `relative` is a real folder. Under a link (or a
 * file) the path is not in the workspace at all: removing it would follow the link out.
 */
const parentsAreFolders = (workspace: string, relative: string): boolean => {
  const parts = relative.split("/")
  let dir = workspace
  for (let i = 0; i < parts.length - 1; i++) {
    dir = path.join(dir, parts[i] as string)
    if (lstatOrUndefined(dir)?.isDirectory() !== true) return false
  }
  return true
}

/** Removes `relative` unless it is a folder; then its parent folders that became empty and are absent in the snapshot. */
const removeEntry = (objects: ObjectStore, root: ObjectId, workspace: string, relative: string): void => {
  if (!parentsAreFolders(workspace, relative)) return
  const target = path.join(workspace, relative)
  const stat = lstatOrUndefined(target)
  if (stat === undefined || stat.isDirectory()) return
  fs.rmSync(target, { force: true })
  const parts = relative.split("/")
  for (let depth = parts.length - 1; depth >= 1; depth--) {
    const dir = parts.slice(0, depth).join("/")
    if (lookup(objects, root, dir)?.kind === "dir") return
    try {
      fs.rmdirSync(path.join(workspace, dir))
    } catch {
      return
    }
  }
}

/**
 * `maxFileBytes`: a file now larger than this, absent from the snapshot, was never recorded (a
 * turn made it, or it grew past the bound and then the snapshot holds it as skipped): removing it
 * could not be undone, so it stays.
 */
export const restorePaths = (
  objects: ObjectStore,
  workspace: string,
  root: ObjectId,
  paths: ReadonlyArray<string>,
  maxFileBytes: number,
  beforeWrites?: (folders: ReadonlyArray<string>) => void
): void => restoreEntries(objects, workspace, paths.map((relative) => ({ relative, root })), maxFileBytes, beforeWrites)

/**
 * Each path from its own snapshot, in one pass: every removal (deepest first) before every write
 * (shallowest first), whichever snapshot a path comes from, so a folder one snapshot turns into a
 * file never blocks a write another snapshot puts under it halfway through.
 */
export const restoreEntries = (
  objects: ObjectStore,
  workspace: string,
  entries: ReadonlyArray<{ readonly relative: string; readonly root: ObjectId }>,
  maxFileBytes: number,
  /** Told the folders (workspace-relative, "" for the workspace) the writes put temps in, before the first (live.ts records them). */
  beforeWrites?: (folders: ReadonlyArray<string>) => void
): void => {
  for (const { relative } of entries) {
    const problem = checkRelativePath(relative)
    if (problem !== undefined) throw new Error(problem)
  }
  const unique = new Map(entries.map((entry) => [entry.relative, entry.root]))
  const plan = [...unique].map(([relative, root]) => ({ relative, root, entry: lookup(objects, root, relative) }))
  const applicable = plan.filter(({ relative, entry }) => {
    if (entry?.kind === "skipped") return false
    const now = lstatOrUndefined(path.join(workspace, relative))
    if (entry === undefined && now?.isFile() === true && now.size > maxFileBytes) return false
    return !isIgnored(workspace, relative, entry?.kind === "dir" || (entry === undefined && now?.isDirectory() === true))
  })
  const depth = (relative: string): number => relative.split("/").length
  const removals = applicable.filter(({ entry }) => entry === undefined || entry.kind === "dir").sort((a, b) => depth(b.relative) - depth(a.relative))
  for (const { relative, root } of removals) removeEntry(objects, root, workspace, relative)
  const writes = applicable.filter(({ entry }) => entry?.kind === "file" || entry?.kind === "symlink").sort((a, b) => depth(a.relative) - depth(b.relative))
  if (writes.length > 0) beforeWrites?.([...new Set(writes.map(({ relative }) => (relative.includes("/") ? relative.slice(0, relative.lastIndexOf("/")) : "")))])
  for (const { relative, entry } of writes) writeEntry(objects, workspace, relative, entry as TreeEntry & { kind: "file" | "symlink" })
}
