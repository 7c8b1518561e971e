/**
 * A snapshot: walk the workspace with the walker tree/glob/grep use (so .gitignore, .ignore and
 * .rgignore count the same way, `.git` is never entered and symbolic links are never followed),
 * read only the files whose stat differs from the stat index, and store the changed files and
 * folders as objects. When every file matches the index and no file came or went, the last
 * snapshot's id is returned without building a tree. Given a change feed's dirty folders, only
 * those are listed and their files statted; the index stands for the rest.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { IGNORE_FILE_NAMES } from "../files/walk/gitignore.ts"
import { WalkDir, type WalkEntry } from "../files/walk/walk.ts"
import { hashBytes, type ObjectId, type ObjectStore } from "./objects.ts"
import type { CachedStat, ListedKind, StatIndex } from "./stat-index.ts"
import { emptyTree, encodeTree, type TreeEntry } from "./tree.ts"
import type { DirtySet } from "./watcher.ts"

/** A change feed (watcher.ts): told of each folder before it is listed; `dirty` limits the scan to what changed. */
export interface ScanFeed {
  readonly watch: (relative: string) => void
  readonly unwatch: (relative: string) => void
  /** Only these folders changed since the last scan; undefined: look at every folder. */
  readonly dirty: DirtySet | undefined
}

/** A file whose mtime is this close to the scan's start may change again within the same clock tick: not trusted next time. */
const racyMs = 2000

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

/**
 * The stat of a folder's ignore files, to see that they changed without reading them. Only the
 * names there at the last listing are looked at again: one appearing or going changes the
 * folder's own mtime.
 */
const ignoreSignature = (dir: string, names: ReadonlyArray<string> = IGNORE_FILE_NAMES): string => {
  let signature = ""
  for (const name of names) {
    const stat = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false })
    if (stat !== undefined) signature += `${name}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino};`
  }
  return signature
}

const sameStat = (cached: CachedStat | undefined, stat: fs.Stats): cached is CachedStat =>
  cached !== undefined &&
  cached.size === stat.size &&
  cached.mtimeMs === stat.mtimeMs &&
  cached.ctimeMs === stat.ctimeMs &&
  cached.ino === stat.ino &&
  cached.mode === stat.mode

/** One snapshot's walk over the workspace, updating `index` as it goes. */
class Scan {
  private readonly startedMs = Date.now()
  readonly skipped: Array<{ path: string; bytes: number }> = []
  contentChanged = false
  indexChanged = false
  written = 0
  /** Files seen this scan (each is in the index afterwards). */
  observed = 0
  readonly visitedDirs = new Set<string>()
  /** Folders whose tree may differ from the last snapshot's (and all folders above them). */
  private readonly dirtyDirs = new Set<string>()
  private allDirty = false
  // Walks made this scan, by folder: a folder whose listing must be read again gets its walk from
  // the walks of the folders above it, so its ignore rules are matched exactly as a walk from the top.
  private readonly walks = new Map<string, WalkDir>()
  private readonly listed = new Map<WalkDir, ReadonlyArray<WalkEntry>>()

  private readonly workspace: string
  private readonly index: StatIndex
  private readonly objects: ObjectStore
  private readonly maxFileBytes: number
  private readonly feed: ScanFeed | undefined
  /** Lstat calls made (the tests count them: an unchanged workspace under a watcher needs none). */
  lstats = 0

  constructor(workspace: string, index: StatIndex, objects: ObjectStore, maxFileBytes: number, feed: ScanFeed | undefined) {
    this.workspace = workspace
    this.index = index
    this.objects = objects
    this.maxFileBytes = maxFileBytes
    this.feed = feed
  }

  /** Forgets a folder gone (or no longer selected) and everything recorded below it. */
  dropSubtree(relative: string): void {
    this.feed?.unwatch(relative)
    const prefix = `${relative}/`
    for (const [name, listing] of this.index.listings) {
      if (name !== relative && !name.startsWith(prefix)) continue
      for (const [entry, kind] of listing.entries) if (kind === "f") this.index.files.delete(name === "" ? entry : `${name}/${entry}`)
      this.index.listings.delete(name)
      this.contentChanged = this.indexChanged = true
    }
    this.markParentDirty(relative)
  }

  private markDirty(relative: string): void {
    let dir = relative
    while (!this.dirtyDirs.has(dir)) {
      this.dirtyDirs.add(dir)
      if (dir === "") return
      const cut = dir.lastIndexOf("/")
      dir = cut === -1 ? "" : dir.slice(0, cut)
    }
  }

  private markParentDirty(relative: string): void {
    const cut = relative.lastIndexOf("/")
    this.markDirty(cut === -1 ? "" : relative.slice(0, cut))
  }

  private trusted(mtimeMs: number): boolean {
    return mtimeMs < this.startedMs - racyMs
  }

  /** The cache entry for a path as it is now, reading it only when its stat changed; undefined when it is gone. */
  observe(full: string, relative: string): CachedStat | undefined {
    let stat: fs.Stats
    try {
      this.lstats++
      stat = fs.lstatSync(full)
    } catch {
      return undefined
    }
    const cached = this.index.files.get(relative)
    if (sameStat(cached, stat) && this.trusted(stat.mtimeMs)) return cached
    const next = this.read(full, stat)
    if (next === undefined) return undefined
    if (cached === undefined || cached.kind !== next.kind || cached.value !== next.value || (cached.mode & 0o777) !== (next.mode & 0o777)) {
      this.contentChanged = true
      this.markParentDirty(relative)
    }
    // Too recent to trust: a later write in the same clock tick would leave the stat unchanged.
    this.index.files.set(relative, this.trusted(next.mtimeMs) ? next : { ...next, mtimeMs: -1 })
    this.indexChanged = true
    return next
  }

  /** A link's target, or a file's content stored as an object (or noted as too large). */
  private read(full: string, stat: fs.Stats): CachedStat | undefined {
    if (stat.isSymbolicLink()) {
      try {
        return { kind: "l", size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, mode: stat.mode, value: fs.readlinkSync(full) }
      } catch {
        return undefined
      }
    }
    if (!stat.isFile()) return undefined
    const read = readFileBytes(full, this.maxFileBytes)
    if (read === undefined) return undefined
    const s = read.stat
    if ("large" in read) return { kind: "x", size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino, mode: s.mode, value: "" }
    const id = hashBytes(read.bytes)
    this.written += this.objects.write(id, read.bytes)
    return { kind: "f", size: read.bytes.length, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino, mode: s.mode, value: id }
  }

  private entriesOf(walk: WalkDir): ReadonlyArray<WalkEntry> {
    let entries = this.listed.get(walk)
    if (entries === undefined) {
      entries = walk.entriesSync()
      this.listed.set(walk, entries)
    }
    return entries
  }

  private walkFor(relative: string): WalkDir | undefined {
    const known = this.walks.get(relative)
    if (known !== undefined) return known
    let walk: WalkDir | undefined
    if (relative === "") walk = WalkDir.openRoot(this.workspace)
    else {
      const cut = relative.lastIndexOf("/")
      const parent = this.walkFor(cut === -1 ? "" : relative.slice(0, cut))
      const entry = parent === undefined ? undefined : this.entriesOf(parent).find((candidate) => candidate.kind === "dir" && candidate.relative === relative)
      walk = parent === undefined || entry === undefined ? undefined : parent.child(entry)
    }
    if (walk !== undefined) this.walks.set(relative, walk)
    return walk
  }

  /** The folder's selected entries: from the index when the folder and its ignore files are as they were, else listed again. */
  private listing(relative: string, full: string, fresh: boolean): { readonly entries: ReadonlyArray<readonly [string, ListedKind]>; readonly freshBelow: boolean } | undefined {
    // Watched before it is looked at: a change after this point is reported to the next scan.
    this.feed?.watch(relative)
    this.lstats++
    const stat = fs.lstatSync(full, { throwIfNoEntry: false })
    if (stat === undefined || !stat.isDirectory()) {
      this.feed?.unwatch(relative)
      return undefined
    }
    this.visitedDirs.add(relative)
    const cached = this.index.listings.get(relative)
    if (
      !fresh &&
      cached !== undefined &&
      cached.mtimeMs === stat.mtimeMs &&
      cached.ctimeMs === stat.ctimeMs &&
      cached.ino === stat.ino &&
      (cached.ignores === "" || cached.ignores === ignoreSignature(full, cached.ignores.split(";").slice(0, -1).map((part) => part.slice(0, part.indexOf(":")))))
    ) {
      return { entries: cached.entries, freshBelow: false }
    }
    const ignores = ignoreSignature(full)
    const walk = this.walkFor(relative)
    if (walk === undefined) return undefined
    const entries: Array<readonly [string, ListedKind]> = []
    for (const entry of this.entriesOf(walk)) {
      if (entry.kind === "dir") entries.push([entry.name, "d"])
      else if (entry.kind === "file" || entry.kind === "symlink") entries.push([entry.name, "f"])
    }
    // A folder changed in the last clock ticks may change again unseen: listed again next time.
    this.index.listings.set(relative, { mtimeMs: this.trusted(stat.mtimeMs) ? stat.mtimeMs : -1, ctimeMs: stat.ctimeMs, ino: stat.ino, ignores, entries })
    this.indexChanged = true
    this.markDirty(relative)
    if (cached !== undefined) this.forgetRemovedEntries(relative, cached.entries, entries)
    // New ignore rules here change what the folders below select: their listings are read again too.
    return { entries, freshBelow: fresh || cached?.ignores !== ignores }
  }

  /** Entries a folder no longer holds (or holds as another kind): forgotten from the index. */
  private forgetRemovedEntries(relative: string, before: ReadonlyArray<readonly [string, ListedKind]>, after: ReadonlyArray<readonly [string, ListedKind]>): void {
    const now = new Map(after)
    for (const [name, kind] of before) {
      if (now.get(name) === kind) continue
      const childRelative = relative === "" ? name : `${relative}/${name}`
      if (kind === "d") this.dropSubtree(childRelative)
      else if (this.index.files.delete(childRelative)) this.contentChanged = true
    }
  }

  /**
   * Looks at every selected file in the folder: reads the changed ones, drops the index entries
   * of the ones gone. `deep`: every folder below too; otherwise only those new, those whose
   * ignore rules changed, and those in `subtrees` (a change feed's scan).
   */
  visit(relative: string, full: string, fresh: boolean, deep = true, subtrees: ReadonlySet<string> = new Set()): void {
    if (this.visitedDirs.has(relative)) return
    const listed = this.listing(relative, full, fresh)
    if (listed === undefined) {
      if (this.index.listings.has(relative)) this.dropSubtree(relative)
      return
    }
    const prefix = `${full}${path.sep}`
    for (const [name, kind] of listed.entries) {
      const childRelative = relative === "" ? name : `${relative}/${name}`
      if (kind === "d") {
        if (deep || listed.freshBelow || subtrees.has(childRelative) || !this.index.listings.has(childRelative)) {
          this.visit(childRelative, prefix + name, listed.freshBelow, true, subtrees)
        }
        continue
      }
      const state = this.observe(prefix + name, childRelative)
      if (state === undefined) {
        if (this.index.files.delete(childRelative)) {
          this.contentChanged = this.indexChanged = true
          this.markParentDirty(childRelative)
        }
        continue
      }
      this.observed++
      if (state.kind === "x") this.skipped.push({ path: childRelative, bytes: state.size })
    }
  }

  /** Drops the listings of folders gone, and the index entries of files gone. */
  forgetGone(): void {
    for (const name of this.index.listings.keys()) {
      if (this.visitedDirs.has(name)) continue
      this.index.listings.delete(name)
      this.indexChanged = true
      this.markParentDirty(name)
    }
    // Every path seen is in the index; when the index holds more, the rest are gone.
    if (this.observed === this.index.files.size) return
    const seen = new Set<string>()
    forEachFile(this.index, "", (relative) => seen.add(relative))
    for (const name of this.index.files.keys()) if (!seen.has(name)) this.index.files.delete(name)
    this.contentChanged = this.indexChanged = this.allDirty = true
  }

  /**
   * The folder's tree id, from the listings and the index (the last snapshot's, when nothing in
   * it changed); undefined when it holds nothing recorded (empty folders are not kept, as in git).
   * `dirs` gets the tree of every folder stored again.
   */
  storeTree(relative: string, dirs: Map<string, ObjectId | undefined>): ObjectId | undefined {
    if (!this.allDirty && !this.dirtyDirs.has(relative) && this.index.root !== undefined) return this.index.dirs.get(relative)
    const entries: Array<TreeEntry> = []
    for (const [name, kind] of this.index.listings.get(relative)?.entries ?? []) {
      const childRelative = relative === "" ? name : `${relative}/${name}`
      if (kind === "d") {
        const id = this.storeTree(childRelative, dirs)
        if (id !== undefined) entries.push({ kind: "dir", name, id })
        continue
      }
      const state = this.index.files.get(childRelative)
      if (state === undefined) continue
      if (state.kind === "f") entries.push({ kind: "file", name, mode: state.mode & 0o777, id: state.value, size: state.size })
      else if (state.kind === "l") entries.push({ kind: "symlink", name, target: state.value })
      else entries.push({ kind: "skipped", name, size: state.size })
    }
    if (entries.length === 0 && relative !== "") {
      dirs.set(relative, undefined)
      return undefined
    }
    const tree = encodeTree(entries)
    if (this.index.dirs.get(relative) !== tree.id) this.written += this.objects.write(tree.id, tree.payload)
    dirs.set(relative, tree.id)
    return tree.id
  }
}

const forEachFile = (index: StatIndex, relative: string, each: (relative: string) => void): void => {
  for (const [name, kind] of index.listings.get(relative)?.entries ?? []) {
    const childRelative = relative === "" ? name : `${relative}/${name}`
    if (kind === "d") forEachFile(index, childRelative, each)
    else each(childRelative)
  }
}

const depthOf = (relative: string): number => (relative === "" ? 0 : relative.split("/").length)

/** Whether the folder above `relative` still lists it as a folder (its listing is up to date when this is asked). */
const listedByParent = (index: StatIndex, relative: string): boolean => {
  if (relative === "") return true
  const cut = relative.lastIndexOf("/")
  const name = relative.slice(cut + 1)
  return index.listings.get(cut === -1 ? "" : relative.slice(0, cut))?.entries.some(([entry, kind]) => entry === name && kind === "d") === true
}

/** A change feed's scan: the dirty folders, shallowest first, each still listed by its parent; a subtree entirely. */
const visitDirty = (scan: Scan, workspace: string, index: StatIndex, dirty: DirtySet): void => {
  const order = [...new Set([...dirty.subtrees, ...dirty.dirs])].sort((a, b) => depthOf(a) - depthOf(b))
  for (const relative of order) {
    if (scan.visitedDirs.has(relative)) continue
    if (!listedByParent(index, relative)) {
      if (index.listings.has(relative)) scan.dropSubtree(relative)
      continue
    }
    scan.visit(relative, relative === "" ? workspace : path.join(workspace, relative), false, dirty.subtrees.has(relative), dirty.subtrees)
  }
}

/** The files too large to record, from the index (a change feed's scan does not see them all). */
const skippedIn = (index: StatIndex): Array<{ path: string; bytes: number }> => {
  const skipped: Array<{ path: string; bytes: number }> = []
  for (const [name, state] of index.files) if (state.kind === "x") skipped.push({ path: name, bytes: state.size })
  return skipped.sort((a, b) => (a.path < b.path ? -1 : 1))
}

export const scanWorkspace = (workspace: string, index: StatIndex, objects: ObjectStore, maxFileBytes: number, feed?: ScanFeed): ScanResult & { readonly lstats: number } => {
  const scan = new Scan(workspace, index, objects, maxFileBytes, feed)
  const dirty = index.root === undefined ? undefined : feed?.dirty
  if (dirty === undefined) {
    scan.visit("", workspace, false)
    scan.forgetGone()
  } else visitDirty(scan, workspace, index, dirty)
  const skipped = dirty === undefined ? scan.skipped : skippedIn(index)
  if (!scan.contentChanged && index.root !== undefined) return { id: index.root, skipped, indexChanged: scan.indexChanged, written: scan.written, lstats: scan.lstats }
  const dirs = new Map<string, ObjectId | undefined>()
  const id = scan.storeTree("", dirs) ?? emptyTree.id
  for (const [name, tree] of dirs) {
    if (tree === undefined) index.dirs.delete(name)
    else index.dirs.set(name, tree)
  }
  for (const name of index.dirs.keys()) if (!index.listings.has(name)) index.dirs.delete(name)
  index.root = id
  return { id, skipped, indexChanged: true, written: scan.written, lstats: scan.lstats }
}
