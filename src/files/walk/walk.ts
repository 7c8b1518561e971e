/**
 * The directory walker shared by tree, glob and the built-in grep. It selects files exactly as
 * `rg --hidden --no-require-git --no-ignore-parent --no-ignore-global --no-ignore-exclude -g '!.git'`
 * does when the ignore files between the walk root and the start directory are handed over with
 * `--ignore-file` (see ripgrep.ts):
 *
 * - `.gitignore`, `.ignore` and `.rgignore` files are read in every directory from the ignore root
 *   (the workspace, or the granted directory being walked) down; nothing above that root is read.
 * - Inside the walked tree a `.rgignore` match beats an `.ignore` match, which beats a `.gitignore`
 *   match; within one kind the deepest directory wins; within one file the last line wins. The
 *   files of directories above the start directory come last (deepest first).
 * - Hidden files are included; any entry named `.git` is skipped; symbolic links are reported but
 *   never followed, so a walk never leaves the directory it started in.
 * - An ignore file is read only when it is a regular file (a link to one is followed) of at most
 *   `maxIgnoreFileBytes`; anything else counts as absent and is listed in `refusedIgnoreFiles`:
 *   opening a FIFO would block the reading thread until a writer comes, and `/dev/zero` never ends.
 *   ripgrep reads any of them (grep.ts falls back to the built-in search when one is there).
 * - Entries of a directory are sorted by name in byte order (ripgrep's `--sort path`).
 */
import type { Dirent } from "node:fs"
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { IGNORE_FILE_NAMES, IgnoreMatcher, type GlobFilter, type IgnoreFileName, type MatchResult } from "./gitignore.ts"
import { readRegularFile } from "../confined-read.ts"
import { isWithin } from "../within.ts"

export type EntryKind = "file" | "dir" | "symlink" | "other"

export interface WalkEntry {
  readonly name: string
  /** Absolute path inside the walked tree (symbolic links not resolved). */
  readonly path: string
  /** Path relative to the ignore root, `/`-separated. */
  readonly relative: string
  readonly kind: EntryKind
  /** 1 for the entries of the start directory. */
  readonly depth: number
}

/** Precedence of ignore files inside the walked tree, highest first. */
const PRECEDENCE: ReadonlyArray<IgnoreFileName> = [".rgignore", ".ignore", ".gitignore"]

interface Frame {
  /** Directory of the ignore files, relative to the ignore root ("" for the root). */
  readonly relative: string
  readonly matchers: Partial<Record<IgnoreFileName, IgnoreMatcher>>
}

interface Chain {
  readonly frame: Frame
  readonly parent: Chain | undefined
}

export interface AncestorIgnoreFiles {
  /** Directory relative to the ignore root ("" for the root itself). */
  readonly relative: string
  readonly texts: Partial<Record<IgnoreFileName, string>>
}

/** An ignore file that was not read: not a regular file, too large, or unreadable. */
export interface RefusedIgnoreFile {
  /** Absolute path. */
  readonly file: string
  /** After the file's name: "is a FIFO (named pipe), not a regular file". */
  readonly reason: string
}

/** Far beyond any real ignore file; the cap keeps a huge one from being held whole in memory. */
export const maxIgnoreFileBytes = 4 * 1024 * 1024

export class WalkAborted extends Error {
  constructor() {
    super("walk interrupted")
  }
}

/** Orders names by code point (= UTF-8 byte order, what ripgrep sorts by). */
export const compareNames = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    const xs = x >= 0xd800 && x <= 0xdfff
    const ys = y >= 0xd800 && y <= 0xdfff
    if (xs !== ys) return xs ? 1 : -1
    return x - y
  }
  return a.length - b.length
}

export const toPosix = (p: string): string => (path.sep === "/" ? p : p.split(path.sep).join("/"))

const relativeTo = (frameRelative: string, relative: string): string =>
  frameRelative === "" ? relative : relative.slice(frameRelative.length + 1)

/** The text of an ignore file; undefined when it is missing or was refused (then added to `refused`). */
const readIgnoreFile = (file: string, refused: Array<RefusedIgnoreFile>): string | undefined => {
  const read = readRegularFile(file, maxIgnoreFileBytes)
  if (read === undefined) return undefined
  if ("refused" in read) {
    refused.push({ file, reason: read.refused })
    return undefined
  }
  return read.bytes.toString("utf8")
}

const frameFrom = (relative: string, texts: Partial<Record<IgnoreFileName, string>>): Frame | undefined => {
  const matchers: Partial<Record<IgnoreFileName, IgnoreMatcher>> = {}
  let any = false
  for (const name of IGNORE_FILE_NAMES) {
    const text = texts[name]
    if (text === undefined) continue
    const matcher = IgnoreMatcher.parse(text)
    if (matcher.isEmpty) continue
    matchers[name] = matcher
    any = true
  }
  return any ? { relative, matchers } : undefined
}

/**
 * The ignore files of the directories from `root` down to the parent of `start` (shallowest
 * first). Empty when `start` is `root`. Those not read are added to `refused`.
 */
export const loadAncestorIgnoreFiles = (root: string, start: string, refused: Array<RefusedIgnoreFile> = []): Array<AncestorIgnoreFiles> => {
  const rel = path.relative(root, start)
  if (rel === "" || rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return []
  const parts = rel.split(path.sep)
  const result: Array<AncestorIgnoreFiles> = []
  for (let i = 0; i < parts.length; i++) {
    const dirRel = parts.slice(0, i).join("/")
    const dir = path.join(root, ...parts.slice(0, i))
    const texts: Partial<Record<IgnoreFileName, string>> = {}
    let any = false
    for (const name of IGNORE_FILE_NAMES) {
      const text = readIgnoreFile(path.join(dir, name), refused)
      if (text !== undefined) {
        texts[name] = text
        any = true
      }
    }
    if (any) result.push({ relative: dirRel, texts })
  }
  return result
}

/** The kind of an entry: from the directory listing, or (when it does not say) from lstat. */
const kindOf = (dirent: Dirent): EntryKind | undefined => {
  if (dirent.isSymbolicLink()) return "symlink"
  if (dirent.isDirectory()) return "dir"
  if (dirent.isFile()) return "file"
  return undefined
}

const statKind = (stat: { isSymbolicLink(): boolean; isDirectory(): boolean; isFile(): boolean }): EntryKind =>
  stat.isSymbolicLink() ? "symlink" : stat.isDirectory() ? "dir" : stat.isFile() ? "file" : "other"

const lstatKind = async (full: string): Promise<EntryKind | undefined> => {
  try {
    return statKind(await fs.lstat(full))
  } catch {
    return undefined
  }
}

const lstatKindSync = (full: string): EntryKind | undefined => {
  try {
    return statKind(fsSync.lstatSync(full))
  } catch {
    return undefined
  }
}

/** The ignore files among a directory's entries. */
const ignoreFilesIn = (dirents: ReadonlyArray<Dirent>): Array<IgnoreFileName> => {
  const found: Array<IgnoreFileName> = []
  for (const dirent of dirents) {
    const name = dirent.name as IgnoreFileName
    if (name.charCodeAt(0) === 46 && IGNORE_FILE_NAMES.includes(name)) found.push(name)
  }
  return found
}

interface Shared {
  readonly ancestors: ReadonlyArray<Frame>
  readonly filter: GlobFilter | undefined
  readonly signal: AbortSignal | undefined
  /** Every ignore file of the walk that was not read, in the order met. */
  readonly refused: Array<RefusedIgnoreFile>
}

/** One directory of a walk. */
export class WalkDir {
  /** Absolute path. */
  readonly path: string
  /** Relative to the ignore root, `/`-separated ("" for the root). */
  readonly relative: string
  /** 0 for the start directory. */
  readonly depth: number
  private readonly shared: Shared
  private readonly parentChain: Chain | undefined
  private chain: Chain | undefined

  private constructor(shared: Shared, dir: string, relative: string, depth: number, parentChain: Chain | undefined) {
    this.shared = shared
    this.path = dir
    this.relative = relative
    this.depth = depth
    this.parentChain = parentChain
    this.chain = parentChain
  }

  /**
   * Opens a walk of `start` (a real directory path inside `root`). `filter` is the `-g` glob of
   * grep, if any.
   */
  static async open(
    root: string,
    start: string,
    options: { readonly filter?: GlobFilter | undefined; readonly signal?: AbortSignal | undefined } = {}
  ): Promise<WalkDir> {
    const ancestors: Array<Frame> = []
    const refused: Array<RefusedIgnoreFile> = []
    for (const files of loadAncestorIgnoreFiles(root, start, refused)) {
      const frame = frameFrom(files.relative, files.texts)
      if (frame !== undefined) ancestors.unshift(frame)
    }
    const shared: Shared = { ancestors, filter: options.filter, signal: options.signal, refused }
    return new WalkDir(shared, start, toPosix(path.relative(root, start)), 0, undefined)
  }

  /** A walk of the ignore root itself, ready at once: no directory above it has ignore files that count. */
  static openRoot(root: string): WalkDir {
    return new WalkDir({ ancestors: [], filter: undefined, signal: undefined, refused: [] }, root, "", 0, undefined)
  }

  /** The ignore files this walk (this directory, its children and the ones above it) did not read so far. */
  get refusedIgnoreFiles(): ReadonlyArray<RefusedIgnoreFile> {
    return this.shared.refused
  }

  private checkAborted(): void {
    if (this.shared.signal?.aborted === true) throw new WalkAborted()
  }

  private decide(relative: string, isDir: boolean): MatchResult {
    for (const name of PRECEDENCE) {
      for (let link = this.chain; link !== undefined; link = link.parent) {
        const matcher = link.frame.matchers[name]
        if (matcher === undefined) continue
        const result = matcher.match(relativeTo(link.frame.relative, relative), isDir)
        if (result !== undefined) return result
      }
    }
    for (const frame of this.shared.ancestors) {
      for (const name of PRECEDENCE) {
        const result = frame.matchers[name]?.match(relativeTo(frame.relative, relative), isDir)
        if (result !== undefined) return result
      }
    }
    return undefined
  }

  private selected(name: string, relative: string, kind: EntryKind): boolean {
    if (name === ".git") return false
    const isDir = kind === "dir"
    const filtered = this.shared.filter?.match(relative, isDir)
    if (filtered === "ignore") return false
    if (filtered === "whitelist") return true
    return this.decide(relative, isDir) !== "ignore"
  }

  /**
   * The selected entries of this directory, sorted by name. An unreadable directory has none.
   * Throws WalkAborted when the signal fires.
   */
  async entries(): Promise<ReadonlyArray<WalkEntry>> {
    this.checkAborted()
    let dirents: Array<Dirent>
    try {
      dirents = await fs.readdir(this.path, { withFileTypes: true })
    } catch {
      return []
    }
    const texts = this.ignoreTexts(dirents)
    const prefix = path.join(this.path, "_").slice(0, -1)
    const unknown = new Map<string, EntryKind | undefined>()
    for (const dirent of dirents) if (kindOf(dirent) === undefined) unknown.set(dirent.name, await lstatKind(prefix + dirent.name))
    const result = this.select(dirents, texts, unknown, prefix)
    this.checkAborted()
    return result
  }

  /** This directory's entries; none when it cannot be read (gone, or no permission). */
  private direntsSync(): Array<Dirent> {
    try {
      return fsSync.readdirSync(this.path, { withFileTypes: true })
    } catch {
      return []
    }
  }

  /** `entries()` with synchronous system calls: no promise per directory, for a walk that blocks anyway. */
  entriesSync(): ReadonlyArray<WalkEntry> {
    this.checkAborted()
    const dirents = this.direntsSync()
    const texts = this.ignoreTexts(dirents)
    const prefix = path.join(this.path, "_").slice(0, -1)
    const unknown = new Map<string, EntryKind | undefined>()
    for (const dirent of dirents) if (kindOf(dirent) === undefined) unknown.set(dirent.name, lstatKindSync(prefix + dirent.name))
    return this.select(dirents, texts, unknown, prefix)
  }

  /**
   * The walks of the selected subdirectories only, in no order: for a walk that reads nothing but
   * ignore files (files are neither matched nor sorted, most of a listing's cost).
   */
  subdirectoriesSync(): ReadonlyArray<WalkDir> {
    this.checkAborted()
    const dirents = this.direntsSync()
    this.enter(this.ignoreTexts(dirents))
    const prefix = path.join(this.path, "_").slice(0, -1)
    const result: Array<WalkDir> = []
    for (const dirent of dirents) {
      const kind = kindOf(dirent) ?? lstatKindSync(prefix + dirent.name)
      if (kind !== "dir") continue
      const relative = this.relative === "" ? dirent.name : `${this.relative}/${dirent.name}`
      if (this.selected(dirent.name, relative, kind)) result.push(new WalkDir(this.shared, prefix + dirent.name, relative, this.depth + 1, this.chain))
    }
    return result
  }

  /** This directory's own ignore files join the chain its entries are matched against. */
  private enter(texts: Partial<Record<IgnoreFileName, string>>): void {
    const frame = frameFrom(this.relative, texts)
    this.chain = frame === undefined ? this.parentChain : { frame, parent: this.parentChain }
  }

  /** The texts of the ignore files among this directory's entries (synchronous: each is small, and never a FIFO). */
  private ignoreTexts(dirents: ReadonlyArray<Dirent>): Partial<Record<IgnoreFileName, string>> {
    const texts: Partial<Record<IgnoreFileName, string>> = {}
    for (const name of ignoreFilesIn(dirents)) {
      const text = readIgnoreFile(path.join(this.path, name), this.shared.refused)
      if (text !== undefined) texts[name] = text
    }
    return texts
  }

  /**
   * The selected entries among `dirents`, sorted by name, given the directory's ignore files and
   * the kinds lstat gave for entries the listing does not type. `prefix`: the directory path and a
   * separator (path.join once per directory, not per entry: names hold no separator).
   */
  private select(
    dirents: Array<Dirent>,
    texts: Partial<Record<IgnoreFileName, string>>,
    unknown: ReadonlyMap<string, EntryKind | undefined>,
    prefix: string
  ): Array<WalkEntry> {
    this.enter(texts)
    dirents.sort((a, b) => compareNames(a.name, b.name))
    const result: Array<WalkEntry> = []
    for (const dirent of dirents) {
      const full = prefix + dirent.name
      const kind = kindOf(dirent) ?? unknown.get(dirent.name)
      if (kind === undefined) continue
      const relative = this.relative === "" ? dirent.name : `${this.relative}/${dirent.name}`
      if (!this.selected(dirent.name, relative, kind)) continue
      result.push({ name: dirent.name, path: full, relative, kind, depth: this.depth + 1 })
    }
    return result
  }

  /** The walk of a "dir" entry returned by `entries()` of this directory. */
  child(entry: WalkEntry): WalkDir {
    return new WalkDir(this.shared, entry.path, entry.relative, this.depth + 1, this.chain)
  }
}

/**
 * All selected entries under `start`, depth first, each directory before its contents.
 * `maxDepth` 1 = only the entries of `start`.
 */
export async function* walk(start: WalkDir, maxDepth: number = Number.POSITIVE_INFINITY): AsyncGenerator<WalkEntry> {
  for (const entry of await start.entries()) {
    yield entry
    if (entry.kind === "dir" && entry.depth < maxDepth) yield* walk(start.child(entry), maxDepth)
  }
}

/** Lets the event loop run (timers, I/O callbacks) in the middle of synchronous work. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * The first ignore file a walk of `start` does not read, or undefined when it reads them all: every
 * selected directory is listed, no other file is read. For a search run by ripgrep, which would open
 * that file itself. Synchronous listings (half the time of the asynchronous ones) of directories
 * only, yielding to the event loop every ~15 ms and stopping with WalkAborted when the signal fires.
 */
export const firstRefusedIgnoreFile = async (
  root: string,
  start: string,
  options: { readonly filter?: GlobFilter | undefined; readonly signal?: AbortSignal | undefined } = {}
): Promise<RefusedIgnoreFile | undefined> => {
  const top = await WalkDir.open(root, start, options)
  const queue: Array<WalkDir> = [top]
  let slice = performance.now()
  while (queue.length > 0 && top.refusedIgnoreFiles.length === 0) {
    queue.push(...(queue.pop() as WalkDir).subdirectoriesSync())
    if (performance.now() - slice > 15) {
      await yieldToLoop()
      slice = performance.now()
    }
  }
  return top.refusedIgnoreFiles[0]
}

/**
 * Where ignore files start to count for a real path: the workspace when the path is inside it,
 * otherwise the innermost granted directory that holds it (never anything above those).
 */
export const ignoreRootFor = (fence: { readonly workspace: string; readonly grants: ReadonlyArray<{ readonly root: string }> }, real: string): string => {
  if (isWithin(fence.workspace, real)) return fence.workspace
  let best: string | undefined
  for (const grant of fence.grants) {
    if (isWithin(grant.root, real) && (best === undefined || grant.root.length > best.length)) best = grant.root
  }
  return best ?? real
}
