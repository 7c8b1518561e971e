/** The files that differ between two snapshots, with lines added and removed for text files. */
import type { FileChange } from "./store.ts"
import type { ObjectId, ObjectStore } from "./objects.ts"
import { readTree, type TreeEntry } from "./tree.ts"

/** Above this many line pairs the middle of a diff counts as all removed then all added (as the terminal's diff does). */
const maxCells = 250_000

const isBinary = (bytes: Uint8Array): boolean => bytes.subarray(0, 8000).includes(0)

const lines = (bytes: Uint8Array): Array<string> => {
  if (bytes.length === 0) return []
  const text = Buffer.from(bytes).toString("utf8")
  const parts = text.split("\n")
  if (text.endsWith("\n")) parts.pop()
  return parts
}

/** Lines added and removed between two texts: common head and tail trimmed, then a longest common subsequence. */
export const lineCounts = (before: ReadonlyArray<string>, after: ReadonlyArray<string>): { readonly added: number; readonly removed: number } => {
  let head = 0
  while (head < before.length && head < after.length && before[head] === after[head]) head++
  let tail = 0
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++
  const a = before.slice(head, before.length - tail)
  const b = after.slice(head, after.length - tail)
  if (a.length * b.length > maxCells) return { added: b.length, removed: a.length }
  let previous = new Uint32Array(b.length + 1)
  let current = new Uint32Array(b.length + 1)
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      current[j] = a[i - 1] === b[j - 1] ? (previous[j - 1] as number) + 1 : Math.max(previous[j] as number, current[j - 1] as number)
    }
    ;[previous, current] = [current, previous]
  }
  const common = previous[b.length] as number
  return { added: b.length - common, removed: a.length - common }
}

type Side = TreeEntry | undefined

const describe = (objects: ObjectStore, path: string, from: Side, to: Side): FileChange | undefined => {
  // A file too large to record is known to be there, not what it holds: only a change to or from a recorded file counts.
  if (from?.kind === "skipped" && to?.kind !== "file") return undefined
  if (to?.kind === "skipped" && from?.kind !== "file") return undefined
  const kind: FileChange["kind"] = from === undefined ? "added" : to === undefined ? "deleted" : "modified"
  const beforeBytes = from?.kind === "file" ? objects.read(from.id) : undefined
  const afterBytes = to?.kind === "file" ? objects.read(to.id) : undefined
  const binary = (beforeBytes !== undefined && isBinary(beforeBytes)) || (afterBytes !== undefined && isBinary(afterBytes)) || from?.kind === "skipped" || to?.kind === "skipped"
  if (binary) return { path, kind, added: 0, removed: 0, binary: true }
  const counts = lineCounts(beforeBytes === undefined ? [] : lines(beforeBytes), afterBytes === undefined ? [] : lines(afterBytes))
  return { path, kind, ...counts, binary: false }
}

const same = (a: TreeEntry, b: TreeEntry): boolean => {
  if (a.kind !== b.kind) return false
  switch (a.kind) {
    case "file":
      return b.kind === "file" && a.id === b.id && a.mode === b.mode
    case "symlink":
      return b.kind === "symlink" && a.target === b.target
    case "dir":
      return b.kind === "dir" && a.id === b.id
    case "skipped":
      return b.kind === "skipped" && a.size === b.size
  }
}

export const diffSnapshots = (objects: ObjectStore, from: ObjectId, to: ObjectId): Array<FileChange> => {
  const result: Array<FileChange> = []
  const all = (tree: ObjectId | undefined): Map<string, TreeEntry> => {
    const map = new Map<string, TreeEntry>()
    if (tree !== undefined) for (const entry of readTree(objects, tree)) map.set(entry.name, entry)
    return map
  }
  const walk = (prefix: string, fromTree: ObjectId | undefined, toTree: ObjectId | undefined): void => {
    if (fromTree === toTree) return
    const a = all(fromTree)
    const b = all(toTree)
    const names = [...new Set([...a.keys(), ...b.keys()])]
    for (const name of names) {
      const x = a.get(name)
      const y = b.get(name)
      if (x !== undefined && y !== undefined && same(x, y)) continue
      const path = prefix === "" ? name : `${prefix}/${name}`
      const xDir = x?.kind === "dir" ? x.id : undefined
      const yDir = y?.kind === "dir" ? y.id : undefined
      if (xDir !== undefined || yDir !== undefined) walk(path, xDir, yDir)
      const xFile = x?.kind === "dir" ? undefined : x
      const yFile = y?.kind === "dir" ? undefined : y
      if (xFile === undefined && yFile === undefined) continue
      const change = describe(objects, path, xFile, yFile)
      if (change !== undefined) result.push(change)
    }
  }
  walk("", from, to)
  return result.sort((p, q) => (p.path < q.path ? -1 : p.path > q.path ? 1 : 0))
}
