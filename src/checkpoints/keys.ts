/**
 * The checkpoints a store keeps: one small file per key under keys/ ({key, ids, at}), so that two
 * sessions of one workspace never overwrite each other's list. Pruning removes whole keys.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { isObjectId, tempName, type ObjectId } from "./objects.ts"

export interface KeptEntry {
  readonly key: string
  readonly ids: ReadonlyArray<ObjectId>
  readonly at: Date
}

const fileOf = (keysDir: string, key: string): string => path.join(keysDir, `${createHash("sha256").update(key).digest("hex").slice(0, 40)}.json`)

export const writeKey = (keysDir: string, tmpDir: string, entry: KeptEntry): void => {
  fs.mkdirSync(keysDir, { recursive: true, mode: 0o700 })
  const temp = path.join(tmpDir, tempName("key"))
  try {
    fs.writeFileSync(temp, JSON.stringify({ key: entry.key, ids: entry.ids, at: entry.at.toISOString() }), { mode: 0o600, flag: "wx" })
    fs.renameSync(temp, fileOf(keysDir, entry.key))
  } catch (error) {
    fs.rmSync(temp, { force: true })
    throw error
  }
}

export const removeKey = (keysDir: string, key: string): void => fs.rmSync(fileOf(keysDir, key), { force: true })

/** Every readable key, oldest first (a damaged key file is left out: its content is then prunable). */
export const readKeys = (keysDir: string): Array<KeptEntry> => {
  let names: Array<string>
  try {
    names = fs.readdirSync(keysDir)
  } catch {
    return []
  }
  const result: Array<KeptEntry> = []
  for (const name of names) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue
    try {
      const value = JSON.parse(fs.readFileSync(path.join(keysDir, name), "utf8")) as { key?: unknown; ids?: unknown; at?: unknown }
      const at = new Date(String(value.at))
      if (typeof value.key !== "string" || !Array.isArray(value.ids) || !value.ids.every((id) => typeof id === "string" && isObjectId(id)) || Number.isNaN(at.getTime())) continue
      result.push({ key: value.key, ids: value.ids as Array<ObjectId>, at })
    } catch {
      continue
    }
  }
  return result.sort((a, b) => a.at.getTime() - b.at.getTime() || (a.key < b.key ? -1 : 1))
}
