/**
 * The files one nested-repository check reads, each read (and parsed) once: the walk and the
 * per-repository check both need a repository's config, and several repositories share paths.
 * Made per check, so nothing outlives it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { openRegularFile, readRegularFile } from "../../files/confined-read.ts"
import { codeOf } from "../../text/error-text.ts"
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

/**
 * A git file that exists but cannot be read the way git reads it (too large, not a regular file,
 * not UTF-8, unreadable): what git would make of it is unknown, so the check fails closed.
 */
export class UnreadableGitFile extends Error {}

/** A small git file's text (a gitfile, `commondir`); undefined when it does not exist; throws UnreadableGitFile. */
export const readGitText = (file: string): string | undefined => {
  const read = readRegularFile(file, maxGitFileBytes)
  if (read === undefined) return undefined
  if ("refused" in read) throw new UnreadableGitFile(`${file} ${read.refused}`)
  return utf8Text(file, read.bytes)
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** Bytes that name a path: only UTF-8 can be named exactly (a lossy decoding would check another path). */
const utf8Text = (file: string, bytes: Uint8Array): string => {
  try {
    return utf8.decode(bytes)
  } catch {
    throw new UnreadableGitFile(`${file} is not UTF-8 text`)
  }
}

/**
 * The first `count` bytes of a file (git reads HEAD that way, so the rest never matters);
 * undefined when it does not exist; throws UnreadableGitFile for anything but a regular file.
 */
export const readGitFileStart = (file: string, count: number): Buffer | undefined => {
  const opened = openRegularFile(file)
  if (opened === undefined) return undefined
  if ("refused" in opened) throw new UnreadableGitFile(`${file} ${opened.refused}`)
  try {
    const buffer = Buffer.alloc(count)
    let length = 0
    while (length < count) {
      const read = fs.readSync(opened.fd, buffer, length, count - length, null)
      if (read === 0) break
      length += read
    }
    return buffer.subarray(0, length)
  } catch (error) {
    throw new UnreadableGitFile(`${file} cannot be read (${codeOf(error)})`)
  } finally {
    fs.closeSync(opened.fd)
  }
}

/**
 * Where a path git reads from one of its files (a gitfile, `commondir`, core.worktree) leads: git
 * joins it to its base and lets the kernel resolve it, so `link/..` is the parent of the link's
 * target, not `.` (a lexical path.resolve would check another directory). A path that does not
 * exist is returned as joined; one the kernel cannot resolve (a loop, no permission) throws
 * UnreadableGitFile.
 */
export const resolveGitPath = (base: string, pointer: string): string => {
  const joined = path.isAbsolute(pointer) ? pointer : `${base}/${pointer}`
  try {
    return fs.realpathSync.native(joined)
  } catch (error) {
    const code = codeOf(error)
    if (code === "ENOENT" || code === "ENOTDIR") return path.resolve(joined)
    throw new UnreadableGitFile(`${joined} cannot be resolved (${code})`)
  }
}

export interface GitFiles {
  /** A config file, parsed; undefined when it does not exist, null when it cannot be read. */
  readonly config: (file: string) => ParsedConfig | undefined | null
  /** The real path (symbolic links resolved), or the path itself when it cannot be resolved. */
  readonly real: (file: string) => string
  /** resolveGitPath, once per base and pointer: a submodule's git directory is checked twice in a walk. */
  readonly resolve: (base: string, pointer: string) => string
  /** A directory's entries; undefined when it does not exist or is not a directory, null when it cannot be listed. */
  readonly list: (dir: string) => ReadonlyArray<string> | undefined | null
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
        result = fs.realpathSync.native(file)
      } catch {
        result = path.resolve(file)
      }
      reals.set(file, result)
    }
    return result
  }
  const resolved = new Map<string, string>()
  const resolve = (base: string, pointer: string): string => {
    const key = `${base}\0${pointer}`
    let result = resolved.get(key)
    if (result === undefined) resolved.set(key, (result = resolveGitPath(base, pointer)))
    return result
  }
  const listings = new Map<string, ReadonlyArray<string> | undefined | null>()
  const list = (dir: string): ReadonlyArray<string> | undefined | null => {
    if (listings.has(dir)) return listings.get(dir)
    let result: ReadonlyArray<string> | undefined | null
    try {
      result = fs.readdirSync(dir)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      result = code === "ENOENT" || code === "ENOTDIR" ? undefined : null
    }
    listings.set(dir, result)
    return result
  }
  return { config, real, resolve, list }
}
