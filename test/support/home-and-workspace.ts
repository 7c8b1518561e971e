/** A temporary Crystal home holding `config` as config.json, and an empty workspace beside it. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { tempDir } from "./temp.ts"

export const homeAndWorkspace = async (config: unknown): Promise<{ readonly root: string; readonly home: string; readonly workspace: string }> => {
  const root = await tempDir()
  const home = path.join(root, "home")
  const workspace = path.join(root, "ws")
  await fs.mkdir(workspace, { recursive: true })
  await fs.mkdir(home, { recursive: true })
  await fs.writeFile(path.join(home, "config.json"), JSON.stringify(config))
  return { root, home, workspace }
}
