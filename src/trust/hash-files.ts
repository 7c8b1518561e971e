import { createHash, type Hash } from "node:crypto"
import * as fs from "node:fs"
import { openRegularFile } from "../files/confined-read.ts"

/** Hashes a regular file's length and bytes; false (nothing hashed) for anything else: a FIFO is never opened for reading. */
const hashRegularFile = (hash: Hash, file: string): boolean => {
  const opened = openRegularFile(file)
  if (opened === undefined || "refused" in opened) return false
  try {
    hash.update(`${opened.stat.size}\0`)
    const chunk = Buffer.allocUnsafe(64 * 1024)
    for (;;) {
      const count = fs.readSync(opened.fd, chunk, 0, chunk.length, null)
      if (count === 0) return true
      hash.update(chunk.subarray(0, count))
    }
  } catch {
    // Half hashed: the hash differs from any earlier one, so the operator is asked again.
    hash.update("unreadable\0")
    return true
  } finally {
    fs.closeSync(opened.fd)
  }
}

/**
 * sha256 over files, each as its path, its length and its bytes (a missing file, or one that is not
 * a regular file, as its path and "missing"), so that moving bytes from one file to another changes
 * the hash too. Links are followed: a set's `./run.sh` linked to a script elsewhere is hashed by
 * what it runs.
 */
export const hashFiles = (files: ReadonlyArray<string>): string => {
  const hash = createHash("sha256")
  for (const file of files) {
    hash.update(`${file}\0`)
    if (!hashRegularFile(hash, file)) hash.update("missing\0")
  }
  return hash.digest("hex")
}
