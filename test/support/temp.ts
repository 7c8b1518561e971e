import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach } from "vitest"

const created: Array<string> = []

/** A fresh directory removed after the current test. */
export const tempDir = async (prefix = "crystal-test-"): Promise<string> => {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)))
  created.push(dir)
  return dir
}

afterEach(async () => {
  // A crystal the test just closed (tmux kill-session) may still be writing its history or session
  // as it exits: rm then meets a folder that filled again (ENOTEMPTY), so it tries again a few times.
  await Promise.all(created.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })))
})

/** Writes files given as { "relative/path": "content" } under `root`. */
export const writeTree = async (root: string, files: Readonly<Record<string, string>>): Promise<void> => {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name)
    await fs.mkdir(path.dirname(file), { recursive: true })
    await fs.writeFile(file, content)
  }
}
