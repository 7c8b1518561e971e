/**
 * The content-addressed objects of one workspace's checkpoint store: file contents and directory
 * trees, each deflated under objects/<first 2 hex>/<rest> and named by the SHA-256 of what it holds.
 * An object is written to a hidden temp in tmp/ (named like writeFileAtomic's, so the next open
 * removes those of a dead process) and renamed into place: a crash leaves a whole object or none.
 * No fsync per object: a checkpoint is a convenience, and a torn object after a power loss is
 * found by the hash check on read and reported, never restored.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { deflateSync, inflateSync } from "node:zlib"

export type ObjectId = string

export const hashBytes = (bytes: Uint8Array): ObjectId => createHash("sha256").update(bytes).digest("hex")

const objectIdPattern = /^[0-9a-f]{64}$/

export const isObjectId = (text: string): boolean => objectIdPattern.test(text)

let tempCounter = 0

/** A hidden temp name removeOrphanedTemps recognises (`.LABEL.PID.MS.N.tmp`). */
export const tempName = (label: string): string => `.${label}.${process.pid}.${Date.now()}.${tempCounter++}.tmp`

export class ObjectStore {
  readonly objectsDir: string
  readonly tmpDir: string
  private readonly madeDirs = new Set<string>()
  /** Called before an object that is not stored yet is written (the store marks itself as writing, see live.ts). */
  beforeNewObject: () => void = () => {}
  /** Compressed bytes this process has added to the store (what pruning watches for between prunes). */
  bytesWritten = 0

  constructor(root: string) {
    this.objectsDir = path.join(root, "objects")
    this.tmpDir = path.join(root, "tmp")
  }

  pathOf(id: ObjectId): string {
    return path.join(this.objectsDir, id.slice(0, 2), id.slice(2))
  }

  has(id: ObjectId): boolean {
    return fs.existsSync(this.pathOf(id))
  }

  /** Stores `payload` under `id` (its hash) unless it is there already; returns the bytes written (0 when present). */
  write(id: ObjectId, payload: Uint8Array): number {
    const target = this.pathOf(id)
    if (fs.existsSync(target)) return 0
    this.beforeNewObject()
    const dir = path.dirname(target)
    if (!this.madeDirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
      this.madeDirs.add(dir)
    }
    const packed = deflateSync(payload, { level: payload.length > 1024 * 1024 ? 1 : 6 })
    const temp = path.join(this.tmpDir, tempName("object"))
    try {
      fs.writeFileSync(temp, packed, { mode: 0o600, flag: "wx" })
      fs.renameSync(temp, target)
    } catch (error) {
      fs.rmSync(temp, { force: true })
      throw error
    }
    this.bytesWritten += packed.length
    return packed.length
  }

  /** The payload of `id`; throws when it is missing or its bytes no longer hash to `id`. */
  read(id: ObjectId): Buffer {
    let packed: Buffer
    try {
      packed = fs.readFileSync(this.pathOf(id))
    } catch (error) {
      throw new Error(`checkpoint object ${id.slice(0, 12)} is missing (${(error as { code?: string }).code ?? "unreadable"})`)
    }
    let payload: Buffer
    try {
      payload = inflateSync(packed)
    } catch {
      throw new Error(`checkpoint object ${id.slice(0, 12)} is damaged`)
    }
    if (hashBytes(payload) !== id) throw new Error(`checkpoint object ${id.slice(0, 12)} is damaged`)
    return payload
  }

  /** Every stored object with its size on disk. */
  list(): Array<{ readonly id: ObjectId; readonly bytes: number }> {
    const result: Array<{ id: ObjectId; bytes: number }> = []
    let fans: Array<string>
    try {
      fans = fs.readdirSync(this.objectsDir)
    } catch {
      return result
    }
    for (const fan of fans) {
      const dir = path.join(this.objectsDir, fan)
      let names: Array<string>
      try {
        names = fs.readdirSync(dir)
      } catch {
        continue
      }
      for (const name of names) {
        const id = fan + name
        if (!isObjectId(id)) continue
        try {
          result.push({ id, bytes: fs.statSync(path.join(dir, name)).size })
        } catch {
          // Removed meanwhile by another process's prune.
        }
      }
    }
    return result
  }

  remove(id: ObjectId): void {
    fs.rmSync(this.pathOf(id), { force: true })
  }
}
