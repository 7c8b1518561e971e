import { createHash } from "node:crypto"
import * as fs from "node:fs"

/**
 * sha256 over files, each as its path, its length and its bytes (a missing file as its path and
 * "missing"), so that moving bytes from one file to another changes the hash too.
 */
export const hashFiles = (files: ReadonlyArray<string>): string => {
  const hash = createHash("sha256")
  for (const file of files) {
    hash.update(`${file}\0`)
    let bytes: Buffer | undefined
    try {
      bytes = fs.statSync(file).isFile() ? fs.readFileSync(file) : undefined
    } catch {
      bytes = undefined
    }
    if (bytes === undefined) hash.update("missing\0")
    else hash.update(`${bytes.length}\0`).update(bytes)
  }
  return hash.digest("hex")
}
