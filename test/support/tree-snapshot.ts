/** Every file under a folder with its content hash, links as their targets: any change shows. */
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"

export const snapshotTree = async (root: string): Promise<Record<string, string>> => {
  const result: Record<string, string> = {}
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      const name = path.relative(root, full)
      if (entry.isSymbolicLink()) result[name] = `link:${await fs.readlink(full)}`
      else if (entry.isDirectory()) {
        result[name] = "dir"
        await visit(full)
      } else result[name] = createHash("sha256").update(await fs.readFile(full)).digest("hex")
    }
  }
  await visit(root)
  return result
}
