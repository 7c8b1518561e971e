/** Opening a checkpoint store on a temp workspace, and the workspace's state (content, mode, links) for comparisons. */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openCheckpointStore } from "../../../src/checkpoints/open.ts"
import { defaultCheckpointSettings, type CheckpointSettings, type CheckpointStoreShape } from "../../../src/checkpoints/store.ts"
import { tempDir } from "../../support/temp.ts"

export const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)

export const openStore = async (workspace: string, crystalHome: string, settings: Partial<CheckpointSettings> = {}): Promise<CheckpointStoreShape> => {
  const opened = await run(openCheckpointStore(workspace, crystalHome, { ...defaultCheckpointSettings, ...settings }))
  if ("_tag" in opened) throw new Error(opened.reason)
  return opened
}

export const fixture = async (): Promise<{ readonly workspace: string; readonly home: string }> => {
  const root = await tempDir("crystal-checkpoints-")
  const workspace = path.join(root, "project")
  const home = path.join(root, "crystal-home")
  fs.mkdirSync(workspace)
  fs.mkdirSync(home)
  return { workspace, home }
}

/** Every entry under `root` (a `.git` folder included when asked): files as mode + hash, links as targets, folders as mode. */
export const treeState = (root: string, options: { readonly skip?: ReadonlyArray<string> } = {}): Record<string, string> => {
  const result: Record<string, string> = {}
  const visit = (dir: string): void => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name)
      const relative = path.relative(root, full)
      if (options.skip?.includes(relative)) continue
      const stat = fs.lstatSync(full)
      if (stat.isSymbolicLink()) result[relative] = `link ${fs.readlinkSync(full)}`
      else if (stat.isDirectory()) {
        result[relative] = `dir ${(stat.mode & 0o777).toString(8)}`
        visit(full)
      } else result[relative] = `file ${(stat.mode & 0o777).toString(8)} ${createHash("sha256").update(fs.readFileSync(full)).digest("hex")}`
    }
  }
  visit(root)
  return result
}

export const write = (root: string, files: Readonly<Record<string, string | Buffer>>): void => {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, content)
  }
}
