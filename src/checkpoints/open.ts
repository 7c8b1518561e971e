/**
 * openCheckpointStore: the store of one workspace under <crystalHome>/checkpoints/<workspace-id>/
 * (objects/, keys/, live/, tmp/, watch/, index.json and a `workspace` file naming the folder), or
 * the reason the workspace gets none. Every operation of one store runs one at a time; the file
 * system work is synchronous inside it. Its change feed (watcher.ts) limits a snapshot to the
 * folders that changed; without it, or in doubt, a snapshot is a walk and an lstat per file.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { removeOrphanedTempsSync } from "../files/orphaned-temps.ts"
import { messageOf } from "../text/error-text.ts"
import { diffSnapshots } from "./changes.ts"
import { readKeys, removeKey, writeKey } from "./keys.ts"
import { liveFileFor, readLive, writeLive } from "./live.ts"
import { isObjectId, ObjectStore, type ObjectId } from "./objects.ts"
import { pruneStore } from "./prune.ts"
import { refusalFor } from "./refusal.ts"
import { checkRelativePath, restoreEntries, restorePaths } from "./restore.ts"
import { scanWorkspace } from "./scan.ts"
import { indexFile, loadIndex, saveIndex } from "./stat-index.ts"
import { CheckpointError, type CheckpointRefusal, type CheckpointSettings, type CheckpointStoreShape, type Snapshot, type StoredEntry } from "./store.ts"
import { lookup } from "./tree.ts"
import { defaultWatcherLimits, WorkspaceWatcher, type WatcherLimits } from "./watcher.ts"

export interface OpenOptions {
  /** A change feed (watcher.ts) so an unchanged workspace's snapshot does not stat every file; default on. */
  readonly watch?: boolean
  readonly watcherLimits?: WatcherLimits
}

/** What the open store's last snapshot did (for tests and the benches: lstat calls, not time). */
export interface StoreProbe {
  readonly watcher: WorkspaceWatcher | undefined
  lastLstats: number
}
const probes = new WeakMap<CheckpointStoreShape, StoreProbe>()
export const probeOf = (store: CheckpointStoreShape): StoreProbe | undefined => probes.get(store)

/** The folder's name (for people looking in ~/.crystal/checkpoints) and a hash of its real path. */
export const workspaceId = (workspace: string): string => {
  const name = path.basename(workspace).replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 40) || "root"
  return `${name}-${createHash("sha256").update(workspace).digest("hex").slice(0, 16)}`
}

export const storeDirFor = (workspace: string, crystalHome: string): string => path.join(crystalHome, "checkpoints", workspaceId(workspace))

const attempt = <A>(what: string, run: () => A): Effect.Effect<A, CheckpointError> =>
  Effect.try({ try: run, catch: (error) => new CheckpointError({ message: `${what}: ${messageOf(error).split("\n")[0]}` }) })

const indexSaveMs = 30_000

/** The open stores' index saves, run once on the way out (one listener, however many stores are opened). */
const savesOnExit = new Set<() => void>()
let exitListening = false
const listenForExit = (): void => {
  if (exitListening) return
  exitListening = true
  process.on("exit", () => {
    for (const save of savesOnExit) {
      try {
        save()
      } catch {
        // The next session reads the changed files again.
      }
    }
  })
}

const checkId = (id: string): void => {
  if (!isObjectId(id)) throw new Error(`"${id}" is not a checkpoint snapshot id`)
}

export const openCheckpointStore = (
  workspace: string,
  crystalHome: string,
  settings: CheckpointSettings,
  options: OpenOptions = {}
): Effect.Effect<CheckpointStoreShape | CheckpointRefusal> =>
  Effect.gen(function* () {
    let real: string
    try {
      real = fs.realpathSync(workspace)
    } catch (error) {
      return { _tag: "Refused", reason: `checkpoints are off: the workspace ${workspace} cannot be read (${messageOf(error)})` } as const
    }
    const refusal = refusalFor(real, crystalHome)
    if (refusal !== undefined) return refusal
    const root = storeDirFor(real, crystalHome)
    const objects = new ObjectStore(root)
    const keysDir = path.join(root, "keys")
    const liveDir = path.join(root, "live")
    const prepared = yield* Effect.either(
      attempt("cannot prepare the checkpoint store", () => {
        for (const dir of [root, objects.objectsDir, objects.tmpDir, keysDir, liveDir]) fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
        fs.writeFileSync(path.join(root, "workspace"), `${real}\n`, { mode: 0o600 })
        // A crash mid-write leaves only hidden temps here; those of processes that are gone go now.
        removeOrphanedTempsSync([objects.tmpDir])
        readLive(liveDir, real)
      })
    )
    if (prepared._tag === "Left") return { _tag: "Refused", reason: `checkpoints are off: ${prepared.left.message} (${root})` } as const
    const lock = yield* Effect.makeSemaphore(1)
    const store = yield* Effect.either(attempt("cannot open the checkpoint store", () => makeStore(real, root, objects, keysDir, liveDir, settings, lock, options)))
    if (store._tag === "Left") return { _tag: "Refused", reason: `checkpoints are off: ${store.left.message} (${root})` } as const
    return store.right
  })

/**
 * The saved index names another process's last snapshot: claim it before a prune elsewhere
 * removes it, then check that a prune did not already (the index is only a cache).
 */
const claimSavedIndex = (index: ReturnType<typeof loadIndex>, objects: ObjectStore, publish: () => void): void => {
  if (index.root === undefined) return
  publish()
  if ([index.root, ...index.dirs.values()].every((id) => objects.has(id))) return
  index.root = undefined
  index.files.clear()
  index.dirs.clear()
  index.listings.clear()
  publish()
}

/**
 * index.json (megabytes for a large workspace) is saved at most every indexSaveMs and on the way
 * out: it is a cache, and losing the last changes to it only means those files are read again.
 */
const makeIndexSaver = (root: string, objects: ObjectStore, index: ReturnType<typeof loadIndex>) => {
  let dirty = false
  let savedAt = 0
  const saveNow = (): void => {
    if (!dirty) return
    saveIndex(root, objects.tmpDir, index)
    dirty = false
    savedAt = Date.now()
  }
  return {
    saveNow,
    changed: (): void => {
      dirty = true
    },
    saveIfDue: (): void => {
      if (Date.now() - savedAt > indexSaveMs) saveNow()
    }
  }
}

type Publish = (writingSince?: number, restoringIn?: ReadonlyArray<string>) => void

/** A restore records the folders it writes temps in first; a kill leaves them for the next open to clear (live.ts). */
const recordingRestore = (publish: Publish, write: (beforeWrites: (folders: ReadonlyArray<string>) => void) => void): void => {
  let recorded = false
  try {
    write((folders) => {
      recorded = true
      publish(undefined, folders)
    })
  } finally {
    if (recorded) publish()
  }
}

const makeStore = (
  workspace: string,
  root: string,
  objects: ObjectStore,
  keysDir: string,
  liveDir: string,
  settings: CheckpointSettings,
  lock: Effect.Semaphore,
  options: OpenOptions
): CheckpointStoreShape => {
  const index = loadIndex(root)
  /** Snapshots this process took and has not passed to keep() yet; pruning keeps them (live.ts). */
  const unkept = new Set<ObjectId>()
  const liveIds = (): Array<ObjectId> => [...unkept, ...(index.root === undefined || unkept.has(index.root) ? [] : [index.root])]
  const liveFile = liveFileFor(liveDir)
  const publish: Publish = (writingSince, restoringIn) =>
    writeLive(liveFile, objects.tmpDir, { ids: liveIds(), writingSince, ...(restoringIn === undefined ? {} : { restoringIn }) })
  const serial = <A>(what: string, run: () => A): Effect.Effect<A, CheckpointError> => lock.withPermits(1)(attempt(what, run))
  claimSavedIndex(index, objects, publish)
  const indexSaver = makeIndexSaver(root, objects, index)
  const saveIndexNow = indexSaver.saveNow
  listenForExit()
  savesOnExit.add(saveIndexNow)
  const watcher = options.watch === false ? undefined : new WorkspaceWatcher(workspace, path.join(root, "watch"), options.watcherLimits ?? defaultWatcherLimits)
  const probe: StoreProbe = { watcher, lastLstats: 0 }
  let lastSkipped: Snapshot["skipped"] = []
  let writtenAtPrune = 0
  // Every event queued before the snapshot is delivered before it looks at the dirty folders.
  const settled = Effect.promise(() => watcher?.settle() ?? Promise.resolve())

  const store: CheckpointStoreShape = {
    workspace,
    snapshot: () =>
      lock.withPermits(1)(Effect.zipRight(settled, attempt("checkpoint snapshot failed", (): Snapshot => {
        const dirty = watcher?.take()
        if (dirty !== undefined && dirty.dirs.size === 0 && dirty.subtrees.size === 0 && index.root !== undefined) {
          probe.lastLstats = 0
          return { id: index.root, skipped: lastSkipped }
        }
        let writing = false
        objects.beforeNewObject = () => {
          if (writing) return
          writing = true
          // Before the first new object: a prune elsewhere keeps what this snapshot writes from now on.
          publish(Date.now() - 1000)
        }
        const before = index.root
        let result: ReturnType<typeof scanWorkspace>
        try {
          result = scanWorkspace(workspace, index, objects, settings.maxFileBytes, watcher && { watch: (relative) => watcher.watch(relative), unwatch: (relative) => watcher.unwatch(relative), dirty })
        } catch (error) {
          watcher?.distrust()
          throw error
        }
        probe.lastLstats = result.lstats
        lastSkipped = result.skipped
        if (result.indexChanged) indexSaver.changed()
        indexSaver.saveIfDue()
        if (result.id !== before) unkept.add(result.id)
        if (result.id !== before || writing) publish()
        return { id: result.id, skipped: result.skipped }
      }))),
    changes: (from, to) =>
      serial("checkpoint changes failed", () => {
        checkId(from)
        checkId(to)
        return diffSnapshots(objects, from, to)
      }),
    read: (id, relative) =>
      serial(`cannot read ${relative} from a checkpoint`, (): StoredEntry | undefined => {
        checkId(id)
        const problem = checkRelativePath(relative)
        if (problem !== undefined) throw new Error(problem)
        const entry = lookup(objects, id, relative)
        if (entry?.kind === "file") return { kind: "file", mode: entry.mode, bytes: new Uint8Array(objects.read(entry.id)) }
        if (entry?.kind === "symlink") return { kind: "symlink", target: entry.target }
        return undefined
      }),
    restore: (id, paths) =>
      serial("checkpoint restore failed", () => {
        checkId(id)
        recordingRestore(publish, (beforeWrites) => restorePaths(objects, workspace, id, paths, settings.maxFileBytes, beforeWrites))
      }),
    restoreEach: (entries) =>
      serial("checkpoint restore failed", () => {
        for (const entry of entries) checkId(entry.from)
        recordingRestore(publish, (beforeWrites) =>
          restoreEntries(objects, workspace, entries.map((entry) => ({ relative: entry.path, root: entry.from })), settings.maxFileBytes, beforeWrites)
        )
      }),
    keep: (key, ids, at) =>
      serial("cannot keep a checkpoint", () => {
        for (const id of ids) checkId(id)
        writeKey(keysDir, objects.tmpDir, { key, ids, at })
        let changed = false
        for (const id of ids) changed = unkept.delete(id) || changed
        if (changed) publish()
      }),
    forget: (prefix) =>
      serial("cannot forget checkpoints", () => {
        for (const entry of readKeys(keysDir)) if (entry.key.startsWith(prefix)) removeKey(keysDir, entry.key)
      }),
    kept: () => serial("cannot list checkpoints", () => readKeys(keysDir)),
    prune: () =>
      serial("checkpoint pruning failed", () => {
        publish()
        saveIndexNow()
        writtenAtPrune = objects.bytesWritten
        return pruneStore({ objects, keysDir, liveDir, indexFile: indexFile(root), root, workspace }, settings)
      }),
    pruneDue: () => objects.bytesWritten - writtenAtPrune > settings.maxBytes / 20,
    close: () =>
      Effect.sync(() => {
        watcher?.close()
      })
  }
  probes.set(store, probe)
  return store
}
