/**
 * The files one nested-repository check reads, each read (and parsed) once: the walk and the
 * per-repository check both need a repository's config, and several repositories share paths.
 * Made per check, so nothing outlives it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { parseGitConfig, type ParsedConfig } from "./git-config-file.ts"

export interface GitFiles {
  /** A config file, parsed; undefined when it does not exist, null when it cannot be read. */
  readonly config: (file: string) => ParsedConfig | undefined | null
  /** The real path (symbolic links resolved), or the path itself when it cannot be resolved. */
  readonly real: (file: string) => string
}

export const makeGitFiles = (): GitFiles => {
  const texts = new Map<string, string | undefined | null>()
  const configs = new Map<string, ParsedConfig | undefined | null>()
  const reals = new Map<string, string>()
  /** A file's text; undefined when it does not exist, null when it exists but cannot be read. */
  const text = (file: string): string | undefined | null => {
    if (texts.has(file)) return texts.get(file)
    let result: string | undefined | null
    try {
      // Most files asked for are missing (config.worktree, .gitmodules…): a stat is cheaper than the error a read throws.
      result = fs.statSync(file, { throwIfNoEntry: false }) === undefined ? undefined : fs.readFileSync(file, "utf8")
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      result = code === "ENOENT" || code === "ENOTDIR" ? undefined : null
    }
    texts.set(file, result)
    return result
  }
  const config = (file: string): ParsedConfig | undefined | null => {
    if (configs.has(file)) return configs.get(file)
    const content = text(file)
    const result = typeof content === "string" ? parseGitConfig(content) : content
    configs.set(file, result)
    return result
  }
  const real = (file: string): string => {
    let result = reals.get(file)
    if (result === undefined) {
      try {
        result = fs.realpathSync(file)
      } catch {
        result = path.resolve(file)
      }
      reals.set(file, result)
    }
    return result
  }
  return { config, real }
}
