import * as os from "node:os"
import * as path from "node:path"

/** Where Crystal keeps its files: ~/.crystal (or $CRYSTAL_HOME) and <workspace>/.crystal. */
export interface CrystalPaths {
  readonly home: string
  readonly configFile: string
  readonly sessionsDir: string
  readonly mediaDir: string
  /** Full texts of truncated tool outputs, one folder per session. */
  readonly spillDir: string
  readonly workspace: string
  readonly workspaceDir: string
}

export const resolveHome = (env: NodeJS.ProcessEnv = process.env): string => {
  const fromEnv = env["CRYSTAL_HOME"]
  return fromEnv !== undefined && fromEnv !== "" ? path.resolve(fromEnv) : path.join(os.homedir(), ".crystal")
}

export const makeCrystalPaths = (workspace: string, env: NodeJS.ProcessEnv = process.env): CrystalPaths => {
  const home = resolveHome(env)
  return {
    home,
    configFile: path.join(home, "config.json"),
    sessionsDir: path.join(home, "sessions"),
    mediaDir: path.join(home, "media"),
    spillDir: path.join(home, "spill"),
    workspace,
    workspaceDir: path.join(workspace, ".crystal")
  }
}
