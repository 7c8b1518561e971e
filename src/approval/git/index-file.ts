/**
 * The gitlinks (mode 160000 entries: submodules and other nested repositories) of a repository's
 * index, read from .git/index without running git: `git status` and `git diff` enter every
 * gitlink whose directory holds a `.git`, with or without a .gitmodules entry, and run that
 * repository's config and hooks.
 *
 * Index versions 2, 3 and 4 (path prefix compression), split index (the `link` extension: the
 * shared index is read too, and its gitlinks count as well — a superset is safe) and sparse
 * directory entries. Anything else it does not know (another version, a required extension,
 * a truncated file, a replaced split-index gitlink whose path only the shared index knows) is
 * reported, so the caller fails closed. Results are cached by the index file's stat.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { readGitFile } from "./files.ts"

export type IndexGitlinks = { readonly ok: true; readonly paths: ReadonlyArray<string> } | { readonly ok: false; readonly reason: string }

interface ParsedIndex {
  readonly paths: ReadonlyArray<string>
  /** The split index's shared index (`sharedindex.<hex>` next to it), when it has one. */
  readonly sharedIndex: string | undefined
}

const GITLINK = 0o160000
const SIGNATURE = 0x44495243 // "DIRC"
/** Required extensions this reader understands; optional ones (upper-case first letter) are skipped. */
const KNOWN_REQUIRED = new Set(["link", "sdir"])

class IndexError extends Error {}

/** The gitlink paths of an index file's bytes, for a repository whose object ids are `hashBytes` long. */
const parseIndex = (bytes: Buffer, hashBytes: number): ParsedIndex => {
  const fail = (what: string): never => {
    throw new IndexError(what)
  }
  if (bytes.length < 12 + hashBytes || bytes.readUInt32BE(0) !== SIGNATURE) fail("it is not an index file")
  const version = bytes.readUInt32BE(4)
  if (version < 2 || version > 4) fail(`its version ${version} is not one Crystal reads`)
  const count = bytes.readUInt32BE(8)
  const end = bytes.length - hashBytes
  const paths: Array<string> = []
  // Version 4 names are the previous name minus N bytes, plus a new suffix: kept in one growing buffer.
  let name = Buffer.alloc(256)
  let nameLength = 0
  let at = 12
  for (let entry = 0; entry < count; entry++) {
    const start = at
    const flagsAt = start + 40 + hashBytes
    if (flagsAt + 2 > end) fail("it ends inside an entry")
    const mode = bytes.readUInt32BE(start + 24)
    const flags = bytes.readUInt16BE(flagsAt)
    const extended = (flags & 0x4000) !== 0
    if (extended && version < 3) fail("a version 2 entry has extended flags")
    at = flagsAt + (extended ? 4 : 2)
    let suffixAt = at
    if (version === 4) {
      // git's varint: 7 bits a byte, high bit "more follows", each continuation adding one.
      if (at >= end) fail("it ends inside an entry")
      let byte = bytes[at++] as number
      let strip = byte & 0x7f
      while ((byte & 0x80) !== 0) {
        if (at >= end || strip > nameLength) fail("an entry's name prefix cannot be read")
        byte = bytes[at++] as number
        strip = (strip + 1) * 128 + (byte & 0x7f)
      }
      if (strip > nameLength) fail("an entry removes more of the previous name than there is")
      nameLength -= strip
      suffixAt = at
    }
    const nul = bytes.indexOf(0, suffixAt)
    if (nul === -1 || nul >= end) fail("it ends inside an entry's name")
    if (version === 4) {
      const suffixLength = nul - suffixAt
      if (nameLength + suffixLength > name.length) {
        const grown = Buffer.alloc(Math.max(name.length * 2, nameLength + suffixLength))
        name.copy(grown, 0, 0, nameLength)
        name = grown
      }
      bytes.copy(name, nameLength, suffixAt, nul)
      nameLength += suffixLength
      at = nul + 1
    } else {
      // NUL padding to a multiple of 8, counted from the entry's start.
      at = start + ((nul - start + 8) & ~7)
      if (at > end) fail("it ends inside an entry's padding")
    }
    if ((mode & 0o170000) !== GITLINK) continue
    const raw = version === 4 ? name.subarray(0, nameLength) : bytes.subarray(suffixAt, nul)
    if (raw.length === 0) fail("a split-index gitlink replaces an entry only the shared index names")
    const text = raw.toString("utf8")
    if (!Buffer.from(text, "utf8").equals(raw)) fail("a gitlink's path is not UTF-8")
    paths.push(text)
  }
  let sharedIndex: string | undefined = undefined
  while (at < end) {
    if (at + 8 > end) fail("it ends inside an extension")
    const signature = bytes.toString("latin1", at, at + 4)
    const size = bytes.readUInt32BE(at + 4)
    const body = at + 8
    if (body + size > end) fail(`its ${signature} extension runs past the end`)
    const optional = /^[A-Z]/.test(signature)
    if (!optional && !KNOWN_REQUIRED.has(signature)) fail(`it has the extension "${signature}", which Crystal does not know`)
    if (signature === "link") {
      if (size < hashBytes) fail("its link extension is too short")
      sharedIndex = `sharedindex.${bytes.toString("hex", body, body + hashBytes)}`
    }
    at = body + size
  }
  return { paths, sharedIndex }
}

interface CacheEntry {
  readonly stamp: string
  readonly result: IndexGitlinks
}

const MAX_CACHED = 256
const cache = new Map<string, CacheEntry>()

/** Stat of a file as a cache key (device, inode, size, modification time in nanoseconds); undefined when it is missing. */
const stampOf = (file: string): string | undefined => {
  const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false })
  return stat === undefined ? undefined : `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`
}

/** The gitlinks of `<gitDir>/index` (none when there is no index), cached by the index's stat. */
export const indexGitlinks = (gitDir: string, hashBytes: number): IndexGitlinks => {
  const file = path.join(gitDir, "index")
  try {
    const stamp = stampOf(file)
    if (stamp === undefined) return { ok: true, paths: [] }
    const key = `${hashBytes}:${file}`
    const cached = cache.get(key)
    if (cached !== undefined && cached.stamp === stamp) return cached.result
    const result = readGitlinks(file, hashBytes)
    if (cache.size >= MAX_CACHED) cache.clear()
    cache.set(key, { stamp, result })
    return result
  } catch (error) {
    return { ok: false, reason: `its index ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` }
  }
}

/** An index is read only as a regular file (a FIFO would hang the check), up to a size no real index reaches. */
const indexBytes = (file: string): Buffer => {
  const bytes = readGitFile(file, maxIndexBytes)
  if (bytes === undefined || bytes === null) throw new IndexError(bytes === undefined ? "it is missing" : "it is not a regular file of a sane size")
  return bytes
}

const maxIndexBytes = 1024 * 1024 * 1024

const readGitlinks = (file: string, hashBytes: number): IndexGitlinks => {
  try {
    const main = parseIndex(indexBytes(file), hashBytes)
    if (main.sharedIndex === undefined) return { ok: true, paths: main.paths }
    const sharedFile = path.join(path.dirname(file), main.sharedIndex)
    const shared = parseIndex(indexBytes(sharedFile), hashBytes)
    if (shared.sharedIndex !== undefined) throw new IndexError(`its shared index ${main.sharedIndex} is itself split`)
    return { ok: true, paths: [...new Set([...shared.paths, ...main.paths])] }
  } catch (error) {
    if (error instanceof IndexError) return { ok: false, reason: `its index ${file} cannot be read: ${error.message}` }
    return { ok: false, reason: `its index ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` }
  }
}
