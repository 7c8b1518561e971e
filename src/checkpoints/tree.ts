/**
 * A directory as a checkpoint holds it: its entries sorted by name, serialised as JSON after a
 * "tree\n" header (so no tree can be mistaken for a file's bytes) and stored as one object. A
 * snapshot's id is its root tree's id, so unchanged folders are shared between snapshots.
 */
import { hashBytes, type ObjectId, type ObjectStore } from "./objects.ts"

export type TreeEntry =
  | { readonly kind: "file"; readonly name: string; readonly mode: number; readonly id: ObjectId; readonly size: number }
  | { readonly kind: "symlink"; readonly name: string; readonly target: string }
  | { readonly kind: "dir"; readonly name: string; readonly id: ObjectId }
  /** A file over checkpoints.maxFileBytes: known to be there, content not recorded. */
  | { readonly kind: "skipped"; readonly name: string; readonly size: number }

type Row = readonly [string, "f", number, string, number] | readonly [string, "l", string] | readonly [string, "d", string] | readonly [string, "x", number]

const header = "tree\n"

const toRow = (entry: TreeEntry): Row => {
  switch (entry.kind) {
    case "file":
      return [entry.name, "f", entry.mode, entry.id, entry.size]
    case "symlink":
      return [entry.name, "l", entry.target]
    case "dir":
      return [entry.name, "d", entry.id]
    case "skipped":
      return [entry.name, "x", entry.size]
  }
}

const fromRow = (row: Row): TreeEntry => {
  switch (row[1]) {
    case "f":
      return { kind: "file", name: row[0], mode: row[2], id: row[3], size: row[4] }
    case "l":
      return { kind: "symlink", name: row[0], target: row[2] }
    case "d":
      return { kind: "dir", name: row[0], id: row[2] }
    case "x":
      return { kind: "skipped", name: row[0], size: row[2] }
  }
}

/** The payload and id of a tree; `entries` must be sorted by name. */
export const encodeTree = (entries: ReadonlyArray<TreeEntry>): { readonly id: ObjectId; readonly payload: Buffer } => {
  const payload = Buffer.from(header + JSON.stringify(entries.map(toRow)), "utf8")
  return { id: hashBytes(payload), payload }
}

export const emptyTree = encodeTree([])

export const readTree = (objects: ObjectStore, id: ObjectId): ReadonlyArray<TreeEntry> => {
  const text = objects.read(id).toString("utf8")
  if (!text.startsWith(header)) throw new Error(`checkpoint object ${id.slice(0, 12)} is not a folder`)
  return (JSON.parse(text.slice(header.length)) as Array<Row>).map(fromRow)
}

/** The entry at a `/`-separated path under the tree `root`, or undefined when there is none. */
export const lookup = (objects: ObjectStore, root: ObjectId, relative: string): TreeEntry | undefined => {
  const parts = relative.split("/")
  let tree = root
  for (let i = 0; i < parts.length; i++) {
    const entry = readTree(objects, tree).find((candidate) => candidate.name === parts[i])
    if (entry === undefined) return undefined
    if (i === parts.length - 1) return entry
    if (entry.kind !== "dir") return undefined
    tree = entry.id
  }
  return undefined
}
