/**
 * The in-memory index behind the search tool: one per walked root (the workspace, or a granted
 * directory), built on first use and kept for the life of the process (= the session), refreshed
 * incrementally before every query.
 *
 * Layout (a forward index, compact and cheap to update):
 * - a dictionary of stems (`stem()` of every distinct subword) → dense stem ids;
 * - per file: its path's stems (directories and basename), and one segment of two shared
 *   Int32Arrays, `fwdStems`/`fwdTfs`: each stem of the file once, with its frequency and a flag for
 *   "appears as a declared name". A query scans the segments once (a few ms for 2M entries).
 * No line offsets are kept: snippets come from re-reading the few best files.
 *
 * Building: the walk (walk.ts, the same selection as tree/glob/grep) lists directories one at a
 * time with synchronous calls (refreshes list them concurrently); files are read and tokenized by
 * search/kernel.ts. With 3 cores or more, a large tree is tokenized by worker threads, overlapping
 * the walk: each worker has its own stem dictionary and sends its new stems as strings with every
 * batch, which this thread maps to global stem ids. Otherwise this thread tokenizes after the
 * walk, with tables sized for the files found, yielding to the event loop every ~15 ms.
 * Generated files (`*.map`, `*.min.js`...) are listed but never read. See docs/search.md.
 *
 * Freshness: every query stats the known directories (an added, deleted or renamed entry changes
 * its directory's mtime) and re-lists the changed ones; an added, removed or edited ignore file
 * re-walks its subtree. Files are re-stat'ed and re-indexed when their mtime or size changed. In a
 * tree of at most 5000 files and 1000 directories (`restatBudget`, `dirRestatBudget`; ≈ 20 ms)
 * everything is checked on every query; in a larger one, files and directories are checked in turn
 * for RESTAT_MS each per query (≈ 1500 stats here), so a change there is seen within a few
 * queries. The files a query is about to show are always checked first, so shown results are never
 * stale. Timestamps are coarse (a kernel tick, a second
 * on some file systems): a file or directory whose mtime was within `RACY_MS` of the moment it was
 * read is read again at the next refresh, as git does for "racily clean" entries.
 *
 * Scope: the session's SearchIndexCache (search/cache.ts), keyed by the real path of the walked
 * root; dropped when the session ends and never written to disk.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Worker } from "node:worker_threads"
import { IGNORE_FILE_NAMES } from "../files/walk/gitignore.ts"
import type { SearchIndexCache } from "./cache.ts"
import { DEF_FLAG, FILE_BINARY, FILE_TOO_BIG, FILE_UNREADABLE, searchWorkerSource, TF_MASK, type SearchKernel } from "./kernel.ts"
import { bestRows, FLAG_BASE, FLAG_DEF, FLAG_DIR, idfOf, scoreMatches, type Matches, type QueryTerm } from "./ranking.ts"
import { kernelConfig, makeKernel, splitWords, stem } from "./tokenize.ts"
import { WalkDir, yieldToLoop, type WalkEntry } from "../files/walk/walk.ts"

/** At most this many files are indexed under one root; the rest are left out (and said so). */
export const SEARCH_MAX_FILES = 200_000
/** Trees of up to this many files have every file re-stat'ed per query (≈ 4 µs each). */
export const FILE_RESTAT_BUDGET = 5000
/** Trees of up to this many directories have every directory re-stat'ed per query. */
export const DIR_RESTAT_BUDGET = 1000
/** In larger trees, files (and directories) are re-stat'ed in turn for this long per query (at least RESTAT_MIN_FILES). */
const RESTAT_MS = 6
const RESTAT_MIN_FILES = 256
/** Below this many files, a cold build tokenizes on this thread (workers cost ~30 ms to start). */
export const WORKER_MIN_FILES = 1500
/** An mtime this close to the moment of reading may hide a later change in the same tick. */
const RACY_MS = 2000

export interface SearchIndexOptions {
  /** Worker threads for a cold build (default: cores − 1, at most 4, none below 3 cores; 0 = this thread only). */
  readonly workers?: number
  /** Files a build must find before it starts workers. */
  readonly workerMinFiles?: number
  /** Trees with more files than this are re-stat'ed in turn, RESTAT_MS per refresh. */
  readonly restatBudget?: number
  /** The same for directories. */
  readonly dirRestatBudget?: number
}
const WORKER_BATCH = 96
const WALK_CONCURRENCY = 8
/** Entries (distinct stems) per file a cold build makes room for: 64 on 25k files of node_modules. */
const ENTRIES_PER_FILE = 80

/** Weight of a query term found only as the prefix of an indexed stem ("auth" → "authent"). */
const PREFIX_WEIGHT = 0.5

const STATUS_PENDING = -1
const STATUS_INDEXED = 0
/** Generated files (source maps, minified bundles): never read, their names are enough to know. */
const STATUS_GENERATED = 4
const GENERATED_NAME = /\.(?:map|min\.(?:js|mjs|cjs|css))$/

interface FileRec {
  readonly rel: string
  mtimeMs: number
  size: number
  /** A kernel status (FILE_INDEXED, FILE_TOO_BIG, ...) or STATUS_PENDING. */
  status: number
  start: number
  count: number
  docLength: number
  /** Stems of the directories, then of the basename (without extension) from `baseFrom` on. */
  pathStems: Int32Array
  baseFrom: number
  /** Read within RACY_MS of its mtime: read again at the next refresh. */
  racy: boolean
}

interface DirRec {
  mtimeMs: number
  racy: boolean
  /** Selected entries: name → file or dir (links and others are not indexed). */
  names: Map<string, "file" | "dir">
}

/** A file the first stage found, with the per-term data the caller uses to rerank it. */
export interface Candidate {
  readonly rel: string
  readonly score: number
}

export interface CandidateResult {
  readonly candidates: ReadonlyArray<Candidate>
  /** The query's terms with their idf (0 for a term no file has). */
  readonly terms: ReadonlyArray<QueryTerm>
  /** Index-wide counts for notes. */
  readonly indexedFiles: number
}

export interface IndexStats {
  readonly files: number
  readonly indexed: number
  readonly tooBig: number
  readonly binary: number
  readonly generated: number
  readonly dirs: number
  readonly stems: number
  readonly entries: number
  readonly truncated: boolean
  /** Worker threads the cold build started, and the files they indexed. */
  readonly workers: number
  readonly workerFiles: number
}


const growInt32 = (array: Int32Array, needed: number): Int32Array => {
  if (needed <= array.length) return array
  const grown = new Int32Array(Math.max(needed, array.length * 2))
  grown.set(array)
  return grown
}

/** A directory's mtime, or undefined when it is not (or no longer) a directory. */
const dirMtime = (dir: WalkDir): number | undefined => {
  try {
    const stat = fs.statSync(dir.path)
    return stat.isDirectory() ? stat.mtimeMs : undefined
  } catch {
    return undefined
  }
}

const joinRel = (dir: string, name: string): string => (dir === "" ? name : `${dir}/${name}`)
const dirOfRel = (rel: string): string => {
  const slash = rel.lastIndexOf("/")
  return slash === -1 ? "" : rel.slice(0, slash)
}
const relativeUnder = (rel: string, dir: string): boolean => dir === "" || rel === dir || rel.startsWith(`${dir}/`)
const isIgnoreFile = (name: string): boolean => (IGNORE_FILE_NAMES as ReadonlyArray<string>).includes(name)

/** Where the stems of a kernel's local term ids are (one per kernel: this thread's, each worker's). */
class TermMap {
  ids: Int32Array = new Int32Array(1024)
}

export class SearchIndex {
  readonly root: string
  private readonly files: Array<FileRec | undefined> = []
  private readonly byRel = new Map<string, number>()
  private readonly dirs = new Map<string, DirRec>()
  private readonly stemIds = new Map<string, number>()
  private readonly stemNames: Array<string> = []
  private fwdStems: Int32Array = new Int32Array(1 << 16)
  private fwdTfs: Int32Array = new Int32Array(1 << 16)
  private fwdUsed = 0
  private fwdDead = 0
  private indexedCount = 0
  private totalLength = 0
  private restatCursor = 0
  private dirCursor = 0
  private truncated = false
  private workersUsed = 0
  private workerFiles = 0
  private kernel: SearchKernel | undefined
  private readonly kernelMap = new TermMap()
  /** Ids of racy files (see RACY_MS). */
  private readonly racyFiles = new Set<number>()
  private readonly options: SearchIndexOptions

  private readonly rootPrefix: string

  private constructor(root: string, options: SearchIndexOptions) {
    this.root = root
    this.rootPrefix = root.endsWith(path.sep) ? root : root + path.sep
    this.options = options
  }

  /** Walks and indexes `root` (a real directory path, the ignore root of the tree). */
  static async build(root: string, options: SearchIndexOptions = {}): Promise<SearchIndex> {
    const index = new SearchIndex(root, options)
    await index.buildAll()
    return index
  }

  stats(): IndexStats {
    let files = 0
    let tooBig = 0
    let binary = 0
    let generated = 0
    for (const file of this.files) {
      if (file === undefined) continue
      files++
      if (file.status === FILE_TOO_BIG) tooBig++
      else if (file.status === FILE_BINARY) binary++
      else if (file.status === STATUS_GENERATED) generated++
    }
    return {
      files,
      indexed: this.indexedCount,
      tooBig,
      binary,
      generated,
      dirs: this.dirs.size,
      stems: this.stemNames.length,
      entries: this.fwdUsed - this.fwdDead,
      truncated: this.truncated,
      workers: this.workersUsed,
      workerFiles: this.workerFiles
    }
  }

  get isTruncated(): boolean {
    return this.truncated
  }

  private abs(rel: string): string {
    return rel === "" ? this.root : `${this.rootPrefix}${rel}`
  }

  // ---- stems ---------------------------------------------------------------------------------------

  private stemId(s: string): number {
    let id = this.stemIds.get(s)
    if (id === undefined) {
      id = this.stemNames.length
      this.stemIds.set(s, id)
      this.stemNames.push(s)
    }
    return id
  }

  /** Records the stem ids of a kernel's new local stems. */
  private absorbStems(map: TermMap, firstNew: number, stems: ReadonlyArray<string>): void {
    map.ids = growInt32(map.ids, firstNew + stems.length)
    for (let k = 0; k < stems.length; k++) map.ids[firstNew + k] = this.stemId(stems[k]!)
  }

  private stemCache = new Map<string, number>()
  private readonly dirStems = new Map<string, ReadonlyArray<number>>()

  /** The stem id of a word (memoized: paths and workers repeat words). */
  private wordStem(word: string): number {
    let id = this.stemCache.get(word)
    if (id === undefined) {
      id = this.stemId(stem(word))
      if (this.stemCache.size > 1 << 18) this.stemCache.clear()
      this.stemCache.set(word, id)
    }
    return id
  }

  private pathStemsOf(rel: string): { stems: Int32Array; baseFrom: number } {
    const slash = rel.lastIndexOf("/")
    const dir = slash === -1 ? "" : rel.slice(0, slash)
    let base = rel.slice(slash + 1)
    const dot = base.lastIndexOf(".")
    if (dot > 0) base = base.slice(0, dot)
    let dirStems = this.dirStems.get(dir)
    if (dirStems === undefined) {
      dirStems = [...new Set(splitWords(dir).map((word) => this.wordStem(word)))]
      if (this.dirStems.size > 1 << 16) this.dirStems.clear()
      this.dirStems.set(dir, dirStems)
    }
    const baseStems: Array<number> = []
    for (const word of splitWords(base)) {
      const id = this.wordStem(word)
      if (!baseStems.includes(id)) baseStems.push(id)
    }
    const stems = new Int32Array(dirStems.length + baseStems.length)
    for (let i = 0; i < dirStems.length; i++) stems[i] = dirStems[i]!
    for (let i = 0; i < baseStems.length; i++) stems[dirStems.length + i] = baseStems[i]!
    return { stems, baseFrom: dirStems.length }
  }

  // ---- files ---------------------------------------------------------------------------------------

  /** Records a new file; gives its id to read, or undefined for a generated file (never read). */
  private addFileRec(rel: string): number | undefined {
    const { stems, baseFrom } = this.pathStemsOf(rel)
    const id = this.files.length
    const status = GENERATED_NAME.test(rel) ? STATUS_GENERATED : STATUS_PENDING
    this.files.push({ rel, mtimeMs: 0, size: 0, status, start: 0, count: 0, docLength: 0, pathStems: stems, baseFrom, racy: false })
    this.byRel.set(rel, id)
    return status === STATUS_PENDING ? id : undefined
  }

  private addFileTo(list: Array<number>, rel: string): void {
    const id = this.addFileRec(rel)
    if (id !== undefined) list.push(id)
  }

  private clearContent(file: FileRec): void {
    if (file.status === STATUS_INDEXED) {
      this.indexedCount--
      this.totalLength -= file.docLength
    }
    this.fwdDead += file.count
    file.count = 0
    file.docLength = 0
  }

  private removeFile(rel: string): void {
    const id = this.byRel.get(rel)
    if (id === undefined) return
    const file = this.files[id]
    if (file !== undefined) this.clearContent(file)
    this.files[id] = undefined
    this.byRel.delete(rel)
    this.racyFiles.delete(id)
  }

  private removeDirTree(rel: string): void {
    for (const dir of [...this.dirs.keys()]) if (relativeUnder(dir, rel)) this.dirs.delete(dir)
    for (const file of [...this.byRel.keys()]) if (relativeUnder(file, rel)) this.removeFile(file)
  }

  /** Stores one file's entries (local term ids of a kernel) as its segment, one entry per stem. */
  private storeEntries(
    id: number,
    file: FileRec,
    readAt: number,
    result: { status: number; size: number; mtimeMs: number; count: number; docLength: number },
    map: TermMap,
    terms: Int32Array,
    tfs: Int32Array,
    offset: number
  ): void {
    this.clearContent(file)
    file.status = result.status
    file.size = result.size
    file.mtimeMs = result.mtimeMs
    file.start = this.fwdUsed
    if (result.status === FILE_UNREADABLE && result.mtimeMs === 0) {
      // Not even opened: remember its stat, so that it is tried again only once it changes.
      const stat = fs.statSync(this.abs(file.rel), { throwIfNoEntry: false })
      file.mtimeMs = stat?.mtimeMs ?? 0
      file.size = stat?.size ?? 0
    }
    file.racy = file.mtimeMs >= readAt - RACY_MS
    if (file.racy) this.racyFiles.add(id)
    else this.racyFiles.delete(id)
    if (result.status !== STATUS_INDEXED) return
    this.indexedCount++
    file.docLength = result.docLength
    this.totalLength += result.docLength
    const needed = this.fwdUsed + result.count
    if (needed > this.fwdStems.length) this.compactOrGrow(needed)
    file.start = this.fwdUsed
    // A kernel gives each stem of a file once: map its local stem ids and copy.
    const ids = map.ids
    const fwdStems = this.fwdStems
    const fwdTfs = this.fwdTfs
    let used = this.fwdUsed
    for (let k = 0; k < result.count; k++) {
      fwdStems[used] = ids[terms[offset + k]!]!
      fwdTfs[used] = tfs[offset + k]!
      used++
    }
    file.count = used - file.start
    this.fwdUsed = used
  }

  /** Sizes the entry arrays for a cold build (instead of doubling them, copies and all, as they fill). */
  private reserveEntries(size: number): void {
    if (size > this.fwdStems.length) this.resizeEntries(size)
  }

  /** New entry arrays of `size`, holding the entries used so far. */
  private resizeEntries(size: number): void {
    const stems = new Int32Array(size)
    stems.set(this.fwdStems.subarray(0, this.fwdUsed))
    const tfs = new Int32Array(size)
    tfs.set(this.fwdTfs.subarray(0, this.fwdUsed))
    this.fwdStems = stems
    this.fwdTfs = tfs
  }

  /** Makes room for `needed` entries: drops dead segments when they are many, else grows. */
  private compactOrGrow(needed: number): void {
    if (this.fwdDead > (1 << 16) && this.fwdDead * 2 > this.fwdUsed) {
      const live = this.fwdUsed - this.fwdDead
      const size = Math.max(1 << 16, (live + (needed - this.fwdUsed)) * 2)
      const stems = new Int32Array(size)
      const tfs = new Int32Array(size)
      let used = 0
      for (const file of this.files) {
        if (file === undefined || file.count === 0) {
          if (file !== undefined) file.start = used
          continue
        }
        stems.set(this.fwdStems.subarray(file.start, file.start + file.count), used)
        tfs.set(this.fwdTfs.subarray(file.start, file.start + file.count), used)
        file.start = used
        used += file.count
      }
      this.fwdStems = stems
      this.fwdTfs = tfs
      this.fwdUsed = used
      this.fwdDead = 0
      return
    }
    this.resizeEntries(Math.max(needed, this.fwdStems.length * 2))
  }

  private mainKernel(): SearchKernel {
    return (this.kernel ??= makeKernel())
  }

  /** Reads and indexes files on this thread, yielding to the event loop every ~15 ms. */
  private async indexOnThisThread(ids: ReadonlyArray<number>): Promise<void> {
    const kernel = this.mainKernel()
    let slice = performance.now()
    for (const id of ids) {
      const file = this.files[id]
      if (file === undefined) continue
      const readAt = Date.now()
      const result = kernel.indexFile(this.abs(file.rel))
      const fresh = kernel.takeNewStems()
      if (fresh.stems.length > 0) this.absorbStems(this.kernelMap, fresh.firstNew, fresh.stems)
      this.storeEntries(id, file, readAt, result, this.kernelMap, kernel.terms(), kernel.tfs(), 0)
      if (performance.now() - slice > 15) {
        await yieldToLoop()
        slice = performance.now()
      }
    }
  }

  // ---- cold build -------------------------------------------------------------------------------

  private async buildAll(): Promise<void> {
    const pending: Array<number> = []
    const pool = new WorkerPool(this, this.options.workers)
    const workerMinFiles = this.options.workerMinFiles ?? WORKER_MIN_FILES
    const onFile = (rel: string): void => {
      this.addFileTo(pending, rel)
      if (!pool.started && pending.length >= workerMinFiles) pool.start()
      if (pool.started) pool.offer(pending)
    }
    try {
      await this.walkTreeSync(await WalkDir.open(this.root, this.root), onFile)
      this.reserveEntries(this.files.length * ENTRIES_PER_FILE)
      if (pool.size === 0) this.kernel ??= makeKernel(this.files.length)
      if (pool.started) {
        pool.offer(pending, true)
        const leftovers = await pool.finish()
        await this.indexOnThisThread(leftovers)
      }
      await this.indexOnThisThread(pending.splice(0))
    } finally {
      pool.close()
    }
    this.workersUsed = pool.size
    // The dictionary of this thread's kernel only helps incremental updates; start it afresh.
    this.kernel = undefined
    this.kernelMap.ids = new Int32Array(1024)
  }

  /** Applies a worker's batch (called by the pool). */
  applyBatch(map: TermMap, ids: ReadonlyArray<number>, sentAt: number, message: WorkerResult): void {
    if (message.newStems.length > 0) this.absorbStems(map, message.firstNew, message.newStems)
    let offset = 0
    for (let i = 0; i < ids.length; i++) {
      const file = this.files[ids[i]!]
      const status = message.meta[i * 5]!
      const count = message.meta[i * 5 + 3]!
      const result = { status, size: message.meta[i * 5 + 1]!, mtimeMs: message.meta[i * 5 + 2]!, count, docLength: message.meta[i * 5 + 4]! }
      if (file !== undefined) this.storeEntries(ids[i]!, file, sentAt, result, map, message.terms, message.tfs, offset)
      if (status === STATUS_INDEXED) this.workerFiles++
      offset += count
    }
  }

  absPath(id: number): string | undefined {
    const file = this.files[id]
    return file === undefined ? undefined : this.abs(file.rel)
  }

  /**
   * Walks `start` and everything under it, recording directories (mtime before listing, entries)
   * and reporting each selected regular file. Sibling directories are listed concurrently.
   */
  private async walkTree(start: WalkDir, onFile: (rel: string) => void): Promise<void> {
    const queue: Array<WalkDir> = [start]
    let active = 0
    await new Promise<void>((resolve, reject) => {
      let failed = false
      const pump = (): void => {
        if (failed) return
        while (active < WALK_CONCURRENCY && queue.length > 0) {
          const dir = queue.pop()!
          active++
          this.visitDir(dir, onFile).then(
            (children) => {
              active--
              for (const child of children) queue.push(child)
              if (active === 0 && queue.length === 0) resolve()
              else pump()
            },
            (error: unknown) => {
              failed = true
              reject(error)
            }
          )
        }
      }
      pump()
    })
  }

  private async visitDir(dir: WalkDir, onFile: (rel: string) => void): Promise<Array<WalkDir>> {
    const listedAt = Date.now()
    const mtimeMs = dirMtime(dir)
    return mtimeMs === undefined ? [] : this.recordDir(dir, mtimeMs, listedAt, await dir.entries(), onFile)
  }

  /**
   * The cold build's walk: as walkTree, listing one directory at a time synchronously (a promise
   * per directory cost more than the listing), yielding to the event loop every ~15 ms.
   */
  private async walkTreeSync(start: WalkDir, onFile: (rel: string) => void): Promise<void> {
    const queue: Array<WalkDir> = [start]
    let slice = performance.now()
    while (queue.length > 0) {
      const dir = queue.pop()!
      const listedAt = Date.now()
      const mtimeMs = dirMtime(dir)
      if (mtimeMs !== undefined) for (const child of this.recordDir(dir, mtimeMs, listedAt, dir.entriesSync(), onFile)) queue.push(child)
      if (performance.now() - slice > 15) {
        await yieldToLoop()
        slice = performance.now()
      }
    }
  }

  /** Records a listed directory (mtime before listing, entries); reports its new files, gives its subdirectories. */
  private recordDir(dir: WalkDir, mtimeMs: number, listedAt: number, entries: ReadonlyArray<WalkEntry>, onFile: (rel: string) => void): Array<WalkDir> {
    const names = new Map<string, "file" | "dir">()
    const children: Array<WalkDir> = []
    for (const entry of entries) {
      if (entry.kind === "file") {
        if (this.byRel.size >= SEARCH_MAX_FILES) {
          this.truncated = true
          continue
        }
        names.set(entry.name, "file")
        if (!this.byRel.has(entry.relative)) onFile(entry.relative)
      } else if (entry.kind === "dir") {
        names.set(entry.name, "dir")
        children.push(dir.child(entry))
      }
    }
    this.dirs.set(dir.relative, { mtimeMs, names, racy: mtimeMs >= listedAt - RACY_MS })
    return children
  }

  // ---- refresh --------------------------------------------------------------------------------------

  /**
   * Brings the index up to date with the disk (see the module comment). Fails when the root
   * itself is gone.
   */
  async refresh(): Promise<void> {
    const rootStat = fs.statSync(this.root, { throwIfNoEntry: false })
    if (rootStat === undefined || !rootStat.isDirectory()) throw new Error(`${this.root} no longer exists`)
    // 1. Directories whose entries changed (shallowest first; a parent's re-listing may drop a
    // child): all of them, or in a large tree in turn for RESTAT_MS (and the racy ones).
    const changed: Array<string> = []
    const dirs = [...this.dirs.keys()]
    const checkDir = (rel: string): void => {
      const dir = this.dirs.get(rel)
      if (dir === undefined) return
      const stat = fs.statSync(this.abs(rel), { throwIfNoEntry: false })
      if (stat === undefined || !stat.isDirectory() || stat.mtimeMs !== dir.mtimeMs || dir.racy) changed.push(rel)
    }
    if (dirs.length <= (this.options.dirRestatBudget ?? DIR_RESTAT_BUDGET)) {
      for (const rel of dirs) checkDir(rel)
    } else {
      let cursor = this.dirCursor % dirs.length
      const until = performance.now() + RESTAT_MS
      for (let n = 0; n < dirs.length; n++) {
        checkDir(dirs[cursor]!)
        cursor = (cursor + 1) % dirs.length
        if (n >= RESTAT_MIN_FILES && (n & 31) === 0 && performance.now() > until) break
      }
      this.dirCursor = cursor
      for (const [rel, dir] of this.dirs) if (dir.racy && !changed.includes(rel)) changed.push(rel)
    }
    changed.sort((a, b) => (a === "" ? -1 : b === "" ? 1 : a.split("/").length - b.split("/").length))
    const stale: Array<number> = []
    const retree: Array<string> = []
    for (const rel of changed) {
      if (this.dirs.has(rel)) await this.relist(rel, stale, retree)
    }
    // 2. Files: all of them, or a budget's worth in turn; and the racy ones.
    const total = this.files.length
    const budget = this.options.restatBudget ?? FILE_RESTAT_BUDGET
    if (total <= budget) {
      for (let id = 0; id < total; id++) this.check(id, stale, retree)
    } else {
      let cursor = this.restatCursor % total
      const until = performance.now() + RESTAT_MS
      for (let n = 0; n < total; n++) {
        this.check(cursor, stale, retree)
        cursor = (cursor + 1) % total
        if (n >= RESTAT_MIN_FILES && (n & 63) === 0 && performance.now() > until) break
      }
      this.restatCursor = cursor
    }
    for (const id of this.racyFiles) stale.push(id)
    // 3. Subtrees whose ignore files changed, then the files to read.
    for (const rel of [...new Set(retree)]) await this.rewalk(rel, stale)
    await this.indexOnThisThread([...new Set(stale)])
  }

  /** Queues a file for re-indexing when its stat changed; drops it when it is gone. */
  private check(id: number, stale: Array<number>, retree: Array<string>): boolean {
    const file = this.files[id]
    if (file === undefined || file.status === STATUS_PENDING || file.status === STATUS_GENERATED) return false
    const stat = fs.statSync(this.abs(file.rel), { throwIfNoEntry: false })
    if (stat === undefined || !stat.isFile()) {
      this.removeFile(file.rel)
      return true
    }
    if (stat.mtimeMs === file.mtimeMs && stat.size === file.size && !file.racy) return false
    stale.push(id)
    const name = file.rel.slice(file.rel.lastIndexOf("/") + 1)
    if (isIgnoreFile(name)) retree.push(dirOfRel(file.rel))
    return true
  }

  /**
   * Checks the given files against the disk and re-indexes those that changed (the results a
   * query is about to show). True when anything changed.
   */
  async verify(rels: ReadonlyArray<string>): Promise<boolean> {
    const stale: Array<number> = []
    const retree: Array<string> = []
    let changed = false
    for (const rel of rels) {
      const id = this.byRel.get(rel)
      if (id !== undefined && this.check(id, stale, retree)) changed = true
    }
    for (const rel of [...new Set(retree)]) await this.rewalk(rel, stale)
    await this.indexOnThisThread([...new Set(stale)])
    return changed
  }

  /** Re-lists one directory whose mtime changed. */
  private async relist(rel: string, added: Array<number>, retree: Array<string>): Promise<void> {
    const abs = this.abs(rel)
    const stat = fs.statSync(abs, { throwIfNoEntry: false })
    if (stat === undefined || !stat.isDirectory()) {
      if (rel !== "") this.removeDirTree(rel)
      return
    }
    const record = this.dirs.get(rel)
    if (record === undefined) return
    const listedAt = Date.now()
    const dir = await WalkDir.open(this.root, abs)
    const entries = await dir.entries()
    const now = new Map<string, "file" | "dir">()
    for (const entry of entries) if (entry.kind === "file" || entry.kind === "dir") now.set(entry.name, entry.kind)
    let ignoreChanged = false
    for (const [name, kind] of record.names) {
      if (now.get(name) === kind) continue
      if (kind === "file") {
        this.removeFile(joinRel(rel, name))
        if (isIgnoreFile(name)) ignoreChanged = true
      } else this.removeDirTree(joinRel(rel, name))
    }
    for (const entry of entries) {
      const was = record.names.get(entry.name)
      if (entry.kind === "file" && was !== "file") {
        if (isIgnoreFile(entry.name)) ignoreChanged = true
        if (!this.byRel.has(entry.relative) && this.byRel.size < SEARCH_MAX_FILES) this.addFileTo(added, entry.relative)
      } else if (entry.kind === "dir" && was !== "dir") {
        await this.walkTree(dir.child(entry), (file) => this.addFileTo(added, file))
      }
    }
    record.mtimeMs = stat.mtimeMs
    record.racy = stat.mtimeMs >= listedAt - RACY_MS
    record.names = now
    if (ignoreChanged) retree.push(rel)
  }

  /** Re-walks a subtree after its ignore rules changed: adds what is now selected, drops the rest. */
  private async rewalk(rel: string, added: Array<number>): Promise<void> {
    const abs = this.abs(rel)
    const stat = fs.statSync(abs, { throwIfNoEntry: false })
    if (stat === undefined || !stat.isDirectory()) {
      if (rel !== "") this.removeDirTree(rel)
      return
    }
    const seenFiles = new Set<string>()
    const before = new Set([...this.dirs.keys()].filter((dir) => relativeUnder(dir, rel)))
    const seenDirs = new Set<string>()
    const start = await WalkDir.open(this.root, abs)
    // visitDir records every directory it lists; files already indexed are kept as they are.
    const walkFiles = (file: string): void => this.addFileTo(added, file)
    const queue: Array<WalkDir> = [start]
    while (queue.length > 0) {
      const dir = queue.pop()!
      seenDirs.add(dir.relative)
      const children = await this.visitDir(dir, walkFiles)
      const record = this.dirs.get(dir.relative)
      if (record !== undefined) for (const [name, kind] of record.names) if (kind === "file") seenFiles.add(joinRel(dir.relative, name))
      queue.push(...children)
    }
    for (const dir of before) if (!seenDirs.has(dir)) this.dirs.delete(dir)
    for (const file of [...this.byRel.keys()]) if (relativeUnder(file, rel) && !seenFiles.has(file)) this.removeFile(file)
  }

  // ---- query ----------------------------------------------------------------------------------------

  /**
   * First stage: BM25 over file contents plus declared-name and path boosts, scaled by the share
   * of the query (by idf) a file matches. `under` limits results to a directory (relative to the
   * root, "" for all). Gives at most `limit` files, best first.
   */
  candidates(stems: ReadonlyArray<string>, under: string, limit: number): CandidateResult {
    const query = this.queryStems(stems)
    const matches = this.matchFiles(query, stems.length, under)
    const idf = idfOf(matches.df, this.indexedCount)
    const slots = new Set(query.slotOf.values())
    const terms: Array<QueryTerm> = stems.map((stem, qi) => ({ stem, idf: slots.has(qi) ? idf[qi]! : 0 }))
    const fileOf = (row: number): FileRec => this.files[matches.file[row]!]!
    const avgLength = Math.max(1, this.totalLength / Math.max(1, this.indexedCount))
    const scores = scoreMatches(matches, terms, (row) => fileOf(row).docLength, avgLength)
    const candidates = bestRows(scores, limit, (row) => fileOf(row).rel).map((row) => ({ rel: fileOf(row).rel, score: scores[row]! }))
    return { candidates, terms, indexedFiles: this.indexedCount }
  }

  /**
   * Each query stem's indexed stems: itself, or (3 letters and more, when it is not indexed) up to
   * 64 stems it is a prefix of, at PREFIX_WEIGHT. `mask` gives a stem id's query slot (-1 none).
   */
  private queryStems(stems: ReadonlyArray<string>): { readonly slotOf: ReadonlyMap<number, number>; readonly mask: Int32Array; readonly weight: Float64Array } {
    const stemCount = this.stemNames.length
    const slotOf = new Map<number, number>()
    const weightOf = new Map<number, number>()
    stems.forEach((s, qi) => {
      const exact = this.stemIds.get(s)
      if (exact !== undefined) {
        slotOf.set(exact, qi)
        weightOf.set(exact, 1)
        return
      }
      if (s.length < 3) return
      let found = 0
      for (let id = 0; id < stemCount && found < 64; id++) {
        const name = this.stemNames[id]!
        if (name.length > s.length && name.startsWith(s) && !slotOf.has(id)) {
          slotOf.set(id, qi)
          weightOf.set(id, PREFIX_WEIGHT)
          found++
        }
      }
    })
    const mask = new Int32Array(stemCount).fill(-1)
    const weight = new Float64Array(stemCount)
    for (const [id, qi] of slotOf) {
      mask[id] = qi
      weight[id] = weightOf.get(id) ?? 1
    }
    return { slotOf, mask, weight }
  }

  /** The indexed files under `under` that hold a query stem in their contents or their path, with per-term frequencies and flags. */
  private matchFiles(query: { readonly mask: Int32Array; readonly weight: Float64Array }, nq: number, under: string): Matches {
    const { mask, weight } = query
    let cap = 1024
    let candFile: Int32Array = new Int32Array(cap)
    let candTf = new Float64Array(cap * nq)
    let candFlags = new Uint8Array(cap * nq)
    let n = 0
    const df = new Float64Array(nq)
    const tf = new Float64Array(nq)
    const flags = new Uint8Array(nq)
    const fwdStems = this.fwdStems
    const fwdTfs = this.fwdTfs
    const prefix = under === "" ? "" : `${under}/`
    for (let id = 0; id < this.files.length; id++) {
      const file = this.files[id]
      if (file === undefined || file.status !== STATUS_INDEXED) continue
      if (prefix !== "" && !file.rel.startsWith(prefix)) continue
      let any = false
      const end = file.start + file.count
      for (let i = file.start; i < end; i++) {
        const qi = mask[fwdStems[i]!]!
        if (qi < 0) continue
        const entry = fwdTfs[i]!
        if (!any) {
          tf.fill(0)
          flags.fill(0)
          any = true
        }
        tf[qi]! += (entry & TF_MASK) * weight[fwdStems[i]!]!
        if ((entry & DEF_FLAG) !== 0) flags[qi]! |= FLAG_DEF
      }
      const ps = file.pathStems
      for (let i = 0; i < ps.length; i++) {
        const qi = mask[ps[i]!]!
        if (qi < 0) continue
        if (!any) {
          tf.fill(0)
          flags.fill(0)
          any = true
        }
        flags[qi]! |= i >= file.baseFrom ? FLAG_BASE : FLAG_DIR
      }
      if (!any) continue
      if (n === cap) {
        cap *= 2
        candFile = growInt32(candFile, cap)
        const t = new Float64Array(cap * nq)
        t.set(candTf)
        candTf = t
        const f = new Uint8Array(cap * nq)
        f.set(candFlags)
        candFlags = f
      }
      candFile[n] = id
      for (let qi = 0; qi < nq; qi++) {
        candTf[n * nq + qi] = tf[qi]!
        candFlags[n * nq + qi] = flags[qi]!
        if (tf[qi]! > 0) df[qi]!++
      }
      n++
    }
    return { file: candFile, tf: candTf, flags: candFlags, count: n, df }
  }
}

// ---- worker pool ----------------------------------------------------------------------------------

interface WorkerResult {
  readonly id: number
  readonly meta: Float64Array
  readonly terms: Int32Array
  readonly tfs: Int32Array
  readonly newStems: ReadonlyArray<string>
  readonly firstNew: number
}

interface Batch {
  readonly ids: ReadonlyArray<number>
  readonly sentAt: number
}

interface PoolWorker {
  readonly worker: Worker
  readonly map: TermMap
  readonly inFlight: Map<number, Batch>
  broken: boolean
}

/**
 * Worker threads that read and tokenize batches of files during a cold build. A worker that fails
 * (or cannot start) gives its batches back; they are indexed on this thread.
 */
class WorkerPool {
  private readonly index: SearchIndex
  private readonly limit: number
  private readonly workers: Array<PoolWorker> = []
  private readonly queue: Array<ReadonlyArray<number>> = []
  private readonly leftovers: Array<number> = []
  private nextBatch = 0
  private done: (() => void) | undefined
  started = false

  constructor(index: SearchIndex, limit: number | undefined) {
    this.index = index
    // Workers pay only with a core to spare beside this thread (which walks and merges); on two
    // cores the build measured faster on this thread alone.
    const cores = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length
    this.limit = limit ?? (cores >= 3 ? Math.min(4, cores - 1) : 0)
  }

  get size(): number {
    return this.workers.length
  }

  start(): void {
    this.started = true
    if (this.limit <= 0) return
    const source = searchWorkerSource()
    for (let i = 0; i < this.limit; i++) {
      let worker: Worker
      try {
        worker = new Worker(source, { eval: true, workerData: kernelConfig })
      } catch {
        break
      }
      worker.unref()
      const entry: PoolWorker = { worker, map: new TermMap(), inFlight: new Map(), broken: false }
      worker.on("message", (message: WorkerResult) => {
        const batch = entry.inFlight.get(message.id)
        entry.inFlight.delete(message.id)
        if (batch !== undefined) this.index.applyBatch(entry.map, batch.ids, batch.sentAt, message)
        this.pump()
      })
      const fail = (): void => {
        if (entry.broken) return
        entry.broken = true
        for (const batch of entry.inFlight.values()) this.leftovers.push(...batch.ids)
        entry.inFlight.clear()
        this.pump()
      }
      worker.on("error", fail)
      worker.on("exit", fail)
      this.workers.push(entry)
    }
  }

  /** Takes files from `pending` in batches (all of them when `all`). */
  offer(pending: Array<number>, all = false): void {
    while (pending.length >= WORKER_BATCH || (all && pending.length > 0)) this.queue.push(pending.splice(0, WORKER_BATCH))
    this.pump()
  }

  private pump(): void {
    const alive = this.workers.filter((w) => !w.broken)
    if (alive.length === 0) {
      for (const ids of this.queue.splice(0)) this.leftovers.push(...ids)
    }
    for (const entry of alive) {
      while (entry.inFlight.size < 2 && this.queue.length > 0) {
        const ids = this.queue.shift()!
        const id = this.nextBatch++
        entry.inFlight.set(id, { ids, sentAt: Date.now() })
        // One string clones much faster than an array of them.
        let files = ""
        for (const fileId of ids) files += `${this.index.absPath(fileId) ?? ""}\0`
        entry.worker.postMessage({ id, files })
      }
    }
    if (this.done !== undefined && this.queue.length === 0 && alive.every((w) => w.inFlight.size === 0)) {
      const done = this.done
      this.done = undefined
      done()
    }
  }

  /** Waits for every batch; gives the files no worker indexed. */
  async finish(): Promise<Array<number>> {
    await new Promise<void>((resolve) => {
      this.done = resolve
      this.pump()
    })
    return this.leftovers.splice(0)
  }

  close(): void {
    for (const entry of this.workers) {
      entry.broken = true
      void entry.worker.terminate()
    }
  }
}

/**
 * Runs `use` on the index of `root` (a real directory path) kept in the session's `cache`, building
 * it on first use and refreshing it first otherwise; calls on one root run one after another.
 */
export const withSearchIndex = <A>(cache: SearchIndexCache, root: string, use: (index: SearchIndex, fresh: boolean) => A | Promise<A>): Promise<A> =>
  cache.run(root, () => SearchIndex.build(root, cache.options), use)
