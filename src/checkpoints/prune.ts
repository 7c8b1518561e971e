/**
 * Pruning: drops keys older than keepDays, then the oldest keys until what the rest (and the
 * running processes' snapshots, live.ts) refer to fits in maxBytes, then every object nothing
 * kept refers to. The kept keys are always the newest ones, so one pass from the newest key down
 * finds where to cut: the objects a key adds to those of newer keys are counted once.
 */
import * as fs from "node:fs"
import { removeOrphanedTempsSync } from "../files/orphaned-temps.ts"
import type { ObjectId, ObjectStore } from "./objects.ts"
import { readKeys, removeKey, type KeptEntry } from "./keys.ts"
import { readLive } from "./live.ts"
import type { PruneReport } from "./store.ts"
import { readTree } from "./tree.ts"

const dayMs = 24 * 60 * 60 * 1000

export interface PrunePlaces {
  readonly objects: ObjectStore
  readonly keysDir: string
  readonly liveDir: string
  /** The workspace: restore temps a dead process left there go with its live file (live.ts). */
  readonly workspace?: string
  /** index.json: counted in the store's size, removed when its snapshot is. */
  readonly indexFile: string
  /** The store's folder: its own small files count too. */
  readonly root: string
}

/** The root of the saved index (whichever process saved it last). */
const savedIndexRoot = (file: string): ObjectId | undefined => {
  try {
    const root = (JSON.parse(fs.readFileSync(file, "utf8")) as { root?: unknown }).root
    return typeof root === "string" ? root : undefined
  } catch {
    return undefined
  }
}

/** The bytes of the files directly in `dir` (keys/, live/, the store's own small files). */
const filesBytes = (dir: string): number => {
  let total = 0
  let names: Array<string>
  try {
    names = fs.readdirSync(dir)
  } catch {
    return 0
  }
  for (const name of names) {
    const stat = fs.statSync(`${dir}/${name}`, { throwIfNoEntry: false })
    if (stat?.isFile() === true) total += stat.size
  }
  return total
}

export const pruneStore = (places: PrunePlaces, limits: { readonly maxBytes: number; readonly keepDays: number }, now: Date = new Date()): PruneReport => {
  const { objects } = places
  removeOrphanedTempsSync([objects.tmpDir])
  const listed = objects.list()
  const sizes = new Map(listed.map((object) => [object.id, object.bytes]))
  /** Everything but the objects (index.json, keys, live states): counted whole, whatever is pruned. */
  const smallFiles = (): number => filesBytes(places.root) + filesBytes(places.keysDir) + filesBytes(places.liveDir)
  const overhead = smallFiles()
  const bytesBefore = listed.reduce((sum, object) => sum + object.bytes, 0) + overhead

  const live = readLive(places.liveDir, places.workspace)
  const keys = readKeys(places.keysDir)
  const cutoff = now.getTime() - limits.keepDays * dayMs
  const removed: Array<KeptEntry> = keys.filter((entry) => entry.at.getTime() < cutoff)
  const candidates = keys.filter((entry) => entry.at.getTime() >= cutoff)

  const retained = new Set<ObjectId>()
  let retainedBytes = overhead
  /** Marks what the tree `root` refers to; a tree already marked is not read again. Missing objects are left out. */
  const mark = (root: ObjectId): void => {
    const stack: Array<readonly [ObjectId, boolean]> = [[root, true]]
    while (stack.length > 0) {
      const [id, isTree] = stack.pop() as readonly [ObjectId, boolean]
      if (retained.has(id)) continue
      const bytes = sizes.get(id)
      if (bytes === undefined) continue
      retained.add(id)
      retainedBytes += bytes
      if (!isTree) continue
      let entries
      try {
        entries = readTree(objects, id)
      } catch {
        continue
      }
      for (const entry of entries) if (entry.kind === "file" || entry.kind === "dir") stack.push([entry.id, entry.kind === "dir"])
    }
  }
  for (const state of live) for (const id of state.ids) mark(id)
  let cut = -1
  for (let i = candidates.length - 1; i >= 0; i--) {
    for (const id of (candidates[i] as KeptEntry).ids) mark(id)
    if (retainedBytes > limits.maxBytes) {
      cut = i
      break
    }
  }
  removed.push(...candidates.slice(0, cut + 1))
  if (cut >= 0) {
    // The last key counted tipped the size over: recount without it and the older ones.
    retained.clear()
    retainedBytes = overhead
    for (const state of live) for (const id of state.ids) mark(id)
    for (const entry of candidates.slice(cut + 1)) for (const id of entry.ids) mark(id)
  }
  for (const entry of removed) removeKey(places.keysDir, entry.key)

  const writingSince = Math.min(...live.map((state) => state.writingSince ?? Number.POSITIVE_INFINITY))
  for (const object of listed) {
    if (retained.has(object.id)) continue
    // Written by a snapshot under way in another process: not reachable from any id yet.
    if (Number.isFinite(writingSince) && (fs.statSync(objects.pathOf(object.id), { throwIfNoEntry: false })?.mtimeMs ?? 0) >= writingSince) continue
    objects.remove(object.id)
  }
  const root = savedIndexRoot(places.indexFile)
  if (root !== undefined && !retained.has(root)) fs.rmSync(places.indexFile, { force: true })
  const bytesAfter = [...retained].reduce((sum, id) => sum + (sizes.get(id) ?? 0), 0) + smallFiles()
  return { checkpointsRemoved: removed.length, bytesBefore, bytesAfter }
}
