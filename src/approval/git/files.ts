/**
 * The files one nested-repository check reads, each read (and parsed) once: the walk and the
 * per-repository check both need a repository's config, and several repositories share paths.
 * Made per check, so nothing outlives it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { readRegularFile } from "../../files/confined-read.ts"
import { parseGitConfig, type ParsedConfig } from "./config-file.ts"

/** Larger than any config or gitfile git itself would accept; an index is read with its own cap. */
export const maxGitFileBytes = 1024 * 1024

/**
 * A git file's bytes; undefined when it does not exist, null when it exists but is not a regular
 * file of at most `maxBytes` (a FIFO or a device is never opened for reading: it would hang git and
 * this check alike).
 */
export const readGitFile = (file: string, maxBytes = maxGitFileBytes): Buffer | undefined | null => {
  const read = readRegularFile(file, maxBytes)
  if (read === undefined) return undefined
  return "refused" in read ? null : read.bytes
}

export interface GitFiles {
  /** A config file, parsed; undefined when it does not exist, null when it cannot be read. */
  readonly config: (file: string) => ParsedConfig | undefined | null
  /** The real path (symbolic links resolved), or the path itself when it cannot be resolved. */
  readonly real: (file: string) => string
}

export const makeGitFiles = (): GitFiles => {
  const configs = new Map<string, ParsedConfig | undefined | null>()
  const reals = new Map<string, string>()
  const config = (file: string): ParsedConfig | undefined | null => {
    if (configs.has(file)) return configs.get(file)
    const bytes = readGitFile(file)
    const result = bytes === undefined || bytes === null ? bytes : parseGitConfig(bytes)
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
