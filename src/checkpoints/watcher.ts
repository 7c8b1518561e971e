/**
 * A change feed for one workspace (docs/checkpoints.md "The watcher"): an inotify watch on every
 * folder a snapshot lists (added just before the folder is listed, so nothing after the listing
 * is missed), each event marking the folder it names dirty, so that the next snapshot re-lists and
 * re-stats only those folders. Whenever the feed cannot be trusted the next snapshot is a full
 * scan: before the first full scan, after a watcher error, an event without a file name, more
 * events than the kernel's queue holds (an overflow is not reported to JavaScript), more dirty
 * folders than `maxDirty`. A watch the kernel refuses (ENOSPC: fs.inotify.max_user_watches),
 * more folders than `maxWatches` or a barrier that did not come back turn the feed off for the
 * store's life: every snapshot is then a full scan, as without a watcher.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** What changed since the last scan: folders whose own entries changed, folders whose whole subtree must be looked at again. */
export interface DirtySet {
  readonly dirs: ReadonlySet<string>
  readonly subtrees: ReadonlySet<string>
}

export interface WatcherLimits {
  readonly maxWatches: number
  readonly maxDirty: number
  readonly barrierTimeoutMs: number
}

export const defaultWatcherLimits: WatcherLimits = { maxWatches: 50_000, maxDirty: 2_000, barrierTimeoutMs: 2_000 }

const queuedEventsBound = (): number => {
  try {
    const value = Number(fs.readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8").trim())
    return Number.isFinite(value) && value > 0 ? value : 16_384
  } catch {
    return 16_384
  }
}

/** Barriers left by a process killed mid-snapshot are removed; a live process's are its own. */
const processAlive = (pid: number): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

export class WorkspaceWatcher {
  private readonly watches = new Map<string, fs.FSWatcher>()
  private dirs = new Set<string>()
  private subtrees = new Set<string>()
  /** True until a full scan ran under the watches, and whenever an event could not be trusted. */
  private doubt = true
  private events = 0
  private readonly maxEvents = queuedEventsBound()
  private barrier: fs.FSWatcher | undefined
  private barrierSeq = 0
  private readonly barrierPrefix = `b.${process.pid}.${Math.random().toString(36).slice(2, 10)}.`
  private awaited: { readonly name: string; readonly done: (ok: boolean) => void } | undefined
  /** Why the feed is off for good (every snapshot is a full scan). */
  offReason: string | undefined
  /** Full scans the feed asked for, and why the last one happened (for tests and the bench). */
  fullScans = 0
  lastFullReason = ""

  private readonly workspace: string
  private readonly barrierDir: string
  private readonly limits: WatcherLimits

  constructor(workspace: string, barrierDir: string, limits: WatcherLimits = defaultWatcherLimits) {
    this.workspace = workspace
    this.barrierDir = barrierDir
    this.limits = limits
  }

  /** Watches a folder before the scan lists it; a folder that went meanwhile is left to the listing. */
  watch(relative: string): void {
    if (this.offReason !== undefined || this.watches.has(relative)) return
    if (this.watches.size >= this.limits.maxWatches) return this.turnOff(`more than ${this.limits.maxWatches} folders`)
    let watcher: fs.FSWatcher
    try {
      watcher = fs.watch(relative === "" ? this.workspace : path.join(this.workspace, relative), { persistent: false }, (_event, name) => this.changed(relative, name))
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === "ENOENT" || code === "ENOTDIR") return
      return this.turnOff(code === "ENOSPC" ? "the kernel's inotify watch limit (fs.inotify.max_user_watches) is reached" : `cannot watch ${relative || "."}: ${code ?? "error"}`)
    }
    watcher.on("error", () => {
      this.doubt = true
    })
    this.watches.set(relative, watcher)
  }

  /** Stops watching a folder and every folder below it (gone, renamed, or no longer a folder). */
  unwatch(relative: string): void {
    const prefix = `${relative}/`
    for (const [name, watcher] of this.watches) {
      if (relative !== "" && name !== relative && !name.startsWith(prefix)) continue
      watcher.close()
      this.watches.delete(name)
    }
  }

  private changed(relative: string, name: string | Buffer | null): void {
    this.events++
    if (name === null || name === undefined || name.length === 0) {
      this.doubt = true
      return
    }
    this.dirs.add(relative)
    const child = relative === "" ? String(name) : `${relative}/${String(name)}`
    // A known folder removed, renamed or replaced: its watches follow the old inode, so its whole subtree is watched and looked at again.
    if (this.watches.has(child)) this.subtrees.add(child)
  }

  /**
   * Waits until every event queued before now is delivered: a file created in a watched folder of
   * the store comes back through the same inotify queue, after the workspace's earlier events.
   */
  settle(): Promise<void> {
    if (this.offReason !== undefined || this.doubt) return Promise.resolve()
    if (this.barrier === undefined) {
      try {
        fs.mkdirSync(this.barrierDir, { recursive: true, mode: 0o700 })
        for (const old of fs.readdirSync(this.barrierDir)) if (!processAlive(Number(old.split(".")[1]))) fs.rmSync(path.join(this.barrierDir, old), { force: true })
        this.barrier = fs.watch(this.barrierDir, { persistent: false }, (_event, name) => {
          if (this.awaited !== undefined && name !== null && String(name) === this.awaited.name) this.awaited.done(true)
        })
        this.barrier.on("error", () => {
          this.doubt = true
        })
      } catch {
        this.doubt = true
        return Promise.resolve()
      }
    }
    // Unique to this watcher: another store or process on the same store creates its own barriers here.
    const name = `${this.barrierPrefix}${++this.barrierSeq}`
    return new Promise<void>((resolve) => {
      // A feed whose barrier does not come back is broken: off for good, so no later snapshot waits for it again.
      const timer = setTimeout(() => {
        finish(false)
        this.turnOff("its barrier did not come back")
      }, this.limits.barrierTimeoutMs)
      const finish = (ok: boolean): void => {
        clearTimeout(timer)
        this.awaited = undefined
        if (!ok) this.doubt = true
        fs.rmSync(path.join(this.barrierDir, name), { force: true })
        resolve()
      }
      this.awaited = { name, done: finish }
      try {
        fs.writeFileSync(path.join(this.barrierDir, name), "", { mode: 0o600 })
      } catch {
        finish(false)
      }
    })
  }

  /**
   * What the next scan may limit itself to, and the start of a new round of events; undefined
   * when it must look at every folder (every watch is then made again as the full scan lists).
   */
  take(): DirtySet | undefined {
    const dirs = this.dirs
    const subtrees = this.subtrees
    const reason =
      this.offReason ??
      (this.doubt
        ? "the feed is not trusted (not started, an error, or an event without a name)"
        : this.events >= this.maxEvents
          ? "more events than the kernel's queue holds"
          : dirs.size + subtrees.size > this.limits.maxDirty
            ? "too many changed folders"
            : undefined)
    this.dirs = new Set()
    this.subtrees = new Set()
    this.events = 0
    this.doubt = false
    if (reason !== undefined) {
      this.fullScans++
      this.lastFullReason = reason
      if (this.offReason === undefined) this.unwatch("")
      return undefined
    }
    for (const subtree of subtrees) this.unwatch(subtree)
    return { dirs, subtrees }
  }

  /** The scan that took the dirty set failed: the next one looks at everything. */
  distrust(): void {
    this.doubt = true
  }

  /** For tests: errors the feed the way a failing watch does. */
  failForTest(): void {
    for (const watcher of this.watches.values()) watcher.emit("error", new Error("test"))
  }

  get watchCount(): number {
    return this.watches.size
  }

  private turnOff(reason: string): void {
    this.offReason = reason
    this.close()
  }

  close(): void {
    this.offReason ??= "closed"
    for (const watcher of this.watches.values()) watcher.close()
    this.watches.clear()
    this.barrier?.close()
    this.barrier = undefined
    this.awaited?.done(false)
  }
}
