/**
 * A snapshot: walk the workspace with the walker tree/glob/grep use (so .gitignore, .ignore and
 * .rgignore count the same way, `.git` is never entered and symbolic links are never followed),
 * read only the files whose stat differs from the stat index, and store the changed files and
 * folders as objects. When every file matches the index and no file came or went, the last
 * snapshot's id is returned without building a tree.
 */
import * as fs from "node:fs"
import { WalkDir, type WalkEntry } from "../files/walk/walk.ts"
import { hashBytes, type ObjectId, type ObjectStore } from "./objects.ts"
import type { CachedStat, StatIndex } from "./stat-index.ts"
import { emptyTree, encodeTree, type TreeEntry } from "./tree.ts"

/** A file whose mtime is this close to the scan's start may change again within the same clock tick: not trusted next time. */
const racyMs = 2000

interface DirNode {
  readonly relative: string
  readonly items: Array<TreeEntry | { readonly kind: "node"; readonly name: string; readonly node: DirNode }>
}

export interface ScanResult {
  readonly id: ObjectId
  readonly skipped: ReadonlyArray<{ readonly path: string; readonly bytes: number }>
  /** Whether the index changed (and should be saved). */
  readonly indexChanged: boolean
  /** Bytes of new objects written. */
  readonly written: number
}

const openFlags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK

/**
 * A regular file's bytes, read through a descriptor that did not follow a link and is checked to
 * be a regular file (a path swapped for a link or a FIFO since the walk is not read); "large"
 * when over `maxBytes`; undefined when it is no longer a regular file.
 */
const readFileBytes = (file: string, maxBytes: number): { readonly bytes: Buffer; readonly stat: fs.Stats } | { readonly large: number; readonly stat: fs.Stats } | undefined => {
  let fd: number
  try {
    fd = fs.openSync(file, openFlags)
  } catch {
    return undefined
  }
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) return undefined
    if (stat.size > maxBytes) return { large: stat.size, stat }
    return { bytes: fs.readFileSync(fd), stat }
  } finally {
    fs.closeSync(fd)
  }
}

const sameStat = (cached: CachedStat | undefined, stat: fs.Stats): cached is CachedStat =>
  cached !== undefined &&
  cached.size === stat.size &&
  cached.mtimeMs === stat.mtimeMs &&
  cached.ctimeMs === stat.ctimeMs &&
  cached.ino === stat.ino &&
  cached.mode === stat.mode

export const scanWorkspace = (workspace: string, index: StatIndex, objects: ObjectStore, maxFileBytes: number): ScanResult => {
  const startedMs = Date.now()
  const skipped: Array<{ path: string; bytes: number }> = []
  const seen = new Set<string>()
  let contentChanged = false
  let indexChanged = false
  let written = 0

  /** The cache entry for a path as it is now, reading it only when its stat changed; undefined when it is gone. */
  const observe = (entry: WalkEntry): CachedStat | undefined => {
    let stat: fs.Stats
    try {
      stat = fs.lstatSync(entry.path)
    } catch {
      return undefined
    }
    const cached = index.files.get(entry.relative)
    if (sameStat(cached, stat) && stat.mtimeMs < startedMs - racyMs) return cached
    let next: CachedStat
    if (stat.isSymbolicLink()) {
      let target: string
      try {
        target = fs.readlinkSync(entry.path)
      } catch {
        return undefined
      }
      next = { kind: "l", size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, mode: stat.mode, value: target }
    } else if (stat.isFile()) {
      const read = readFileBytes(entry.path, maxFileBytes)
      if (read === undefined) return undefined
      const s = read.stat
      if ("large" in read) next = { kind: "x", size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino, mode: s.mode, value: "" }
      else {
        const id = hashBytes(read.bytes)
        written += objects.write(id, read.bytes)
        next = { kind: "f", size: read.bytes.length, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino, mode: s.mode, value: id }
      }
    } else return undefined
    // Too recent to trust: a later write in the same clock tick would leave the stat unchanged.
    const trusted = next.mtimeMs < startedMs - racyMs ? next : { ...next, mtimeMs: -1 }
    if (cached === undefined || cached.kind !== next.kind || cached.value !== next.value || (cached.mode & 0o777) !== (next.mode & 0o777)) contentChanged = true
    index.files.set(entry.relative, trusted)
    indexChanged = true
    return next
  }

  const visit = (dir: WalkDir): DirNode => {
    const node: DirNode = { relative: dir.relative, items: [] }
    for (const entry of dir.entriesSync()) {
      if (entry.kind === "dir") {
        node.items.push({ kind: "node", name: entry.name, node: visit(dir.child(entry)) })
        continue
      }
      if (entry.kind !== "file" && entry.kind !== "symlink") continue
      const state = observe(entry)
      if (state === undefined) continue
      seen.add(entry.relative)
      if (state.kind === "f") node.items.push({ kind: "file", name: entry.name, mode: state.mode & 0o777, id: state.value, size: state.size })
      else if (state.kind === "l") node.items.push({ kind: "symlink", name: entry.name, target: state.value })
      else {
        node.items.push({ kind: "skipped", name: entry.name, size: state.size })
        skipped.push({ path: entry.relative, bytes: state.size })
      }
    }
    return node
  }

  const top = visit(WalkDir.openRoot(workspace))

  for (const name of index.files.keys()) {
    if (seen.has(name)) continue
    index.files.delete(name)
    contentChanged = true
    indexChanged = true
  }
  if (!contentChanged && index.root !== undefined) return { id: index.root, skipped, indexChanged, written }

  const dirs = new Map<string, ObjectId>()
  /** The folder's tree id, or undefined when it holds nothing recorded (empty folders are not kept, as in git). */
  const store = (node: DirNode): ObjectId | undefined => {
    const entries: Array<TreeEntry> = []
    for (const item of node.items) {
      if (item.kind !== "node") entries.push(item)
      else {
        const id = store(item.node)
        if (id !== undefined) entries.push({ kind: "dir", name: item.name, id })
      }
    }
    if (entries.length === 0 && node.relative !== "") return undefined
    const tree = encodeTree(entries)
    if (index.dirs.get(node.relative) !== tree.id) written += objects.write(tree.id, tree.payload)
    dirs.set(node.relative, tree.id)
    return tree.id
  }
  const id = store(top) ?? emptyTree.id
  index.dirs.clear()
  for (const [name, tree] of dirs) index.dirs.set(name, tree)
  index.root = id
  return { id, skipped, indexChanged: true, written }
}
