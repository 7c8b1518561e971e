/**
 * What the last snapshot saw of each file (size, mtime, ctime, inode, mode) and the object it
 * stored, so that the next snapshot reads only the files whose stat changed — the same idea as
 * git's index. Kept in memory by the open store and saved as index.json when it changed; it is a
 * cache: a missing or unreadable one only means every file is read once more. Every object it
 * names belongs to its root snapshot, which pruning keeps while the process that wrote it runs
 * (live.ts); prune removes a saved index whose root it removed.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { ObjectId } from "./objects.ts"
import { tempName } from "./objects.ts"

/** f: a file (value: object id), l: a symbolic link (value: its target), x: a file too large to record (value: ""). */
export type CachedKind = "f" | "l" | "x"

export interface CachedStat {
  readonly kind: CachedKind
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly ino: number
  readonly mode: number
  readonly value: string
}

/** f: a file or link (lstat says which), d: a folder. */
export type ListedKind = "f" | "d"

/** A folder's selected entries, valid while the folder's stat and its ignore files' stats are these. */
export interface CachedListing {
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly ino: number
  readonly ignores: string
  readonly entries: ReadonlyArray<readonly [string, ListedKind]>
}

export interface StatIndex {
  /** The root tree of the last snapshot, if any. */
  root: ObjectId | undefined
  readonly files: Map<string, CachedStat>
  /** Folder (workspace-relative, "" for the top) → its tree in the last snapshot: known to be stored. */
  readonly dirs: Map<string, ObjectId>
  /** Folder → its listing, so an unchanged folder is not listed and matched against ignore rules again (git's untracked cache). */
  readonly listings: Map<string, CachedListing>
}

type StoredIndex = {
  readonly version: 1
  readonly root: ObjectId | null
  readonly files: Record<string, readonly [CachedKind, number, number, number, number, number, string]>
  readonly dirs: Record<string, ObjectId>
  readonly listings: Record<string, CachedListing>
}

export const emptyIndex = (): StatIndex => ({ root: undefined, files: new Map(), dirs: new Map(), listings: new Map() })

export const indexFile = (storeRoot: string): string => path.join(storeRoot, "index.json")
/** The saved index, or an empty one when it is missing or unreadable. */
export const loadIndex = (storeRoot: string): StatIndex => {
  let stored: StoredIndex
  try {
    stored = JSON.parse(fs.readFileSync(indexFile(storeRoot), "utf8")) as StoredIndex
  } catch {
    return emptyIndex()
  }
  if (stored.version !== 1 || typeof stored.files !== "object" || typeof stored.dirs !== "object" || typeof stored.listings !== "object") return emptyIndex()
  const files = new Map<string, CachedStat>()
  for (const [name, [kind, size, mtimeMs, ctimeMs, ino, mode, value]] of Object.entries(stored.files)) {
    files.set(name, { kind, size, mtimeMs, ctimeMs, ino, mode, value })
  }
  return { root: stored.root ?? undefined, files, dirs: new Map(Object.entries(stored.dirs)), listings: new Map(Object.entries(stored.listings)) }
}

export const saveIndex = (storeRoot: string, tmpDir: string, index: StatIndex): void => {
  const files: Record<string, readonly [CachedKind, number, number, number, number, number, string]> = {}
  for (const [name, s] of index.files) files[name] = [s.kind, s.size, s.mtimeMs, s.ctimeMs, s.ino, s.mode, s.value]
  const stored: StoredIndex = { version: 1, root: index.root ?? null, files, dirs: Object.fromEntries(index.dirs), listings: Object.fromEntries(index.listings) }
  const temp = path.join(tmpDir, tempName("index"))
  try {
    fs.writeFileSync(temp, JSON.stringify(stored), { mode: 0o600, flag: "wx" })
    fs.renameSync(temp, indexFile(storeRoot))
  } catch (error) {
    fs.rmSync(temp, { force: true })
    throw error
  }
}
