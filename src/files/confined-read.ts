/**
 * Files Crystal reads on its own initiative, with no tool call and no approval (AGENTS.md,
 * CRYSTAL.md, prompt files, prompt.json, SKILL.md, tools.json, mcp.json): read only as a regular
 * file whose real path stays inside its root (the workspace, or the Crystal home for home files),
 * and at most `maxBytes`. A symbolic link is followed while it stays inside the root (a link to
 * another workspace file is fine); one that leads out, a folder on the way that does, a FIFO, a
 * device, a socket or a file over the cap is refused with a note naming the file and why — never
 * opened for reading, so a FIFO cannot block the process and `/proc/self/environ` cannot reach a
 * model.
 *
 * The check and the read are tied together: the file is opened by its real path with O_NOFOLLOW
 * and O_NONBLOCK, and the open descriptor must be a regular file with the device and inode that
 * were checked (and, where /proc is there, its path inside the root), so a path swapped between
 * the check and the open is refused, not read.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { isWithin } from "./within.ts"
import { codeOf } from "../text/error-text.ts"
import { formatBytes } from "../text/bytes.ts"

export interface ConfinedRoot {
  readonly dir: string
  /** How a note names it: "the workspace", "the Crystal home". */
  readonly label: string
}

export const workspaceRoot = (dir: string): ConfinedRoot => ({ dir, label: "the workspace" })
export const crystalHomeRoot = (dir: string): ConfinedRoot => ({ dir, label: "the Crystal home" })

/** Instructions, prompt texts and skills: prose the model reads whole (1 MiB is more than any context window holds). */
export const maxInstructionBytes = 1024 * 1024
/** tools.json, mcp.json, prompt.json: settings, not prose. */
export const maxManifestBytes = 256 * 1024

export type ConfinedRead =
  | { readonly _tag: "Read"; readonly file: string; readonly text: string }
  | { readonly _tag: "Missing"; readonly file: string }
  | {
      readonly _tag: "Refused"
      readonly file: string
      /** What is wrong, after the file's name: "is a FIFO, not a regular file". */
      readonly reason: string
      /** One line for the operator: the file, the reason, and that it was not read. */
      readonly note: string
    }

/** Why a file that is not a regular file is refused; undefined for a regular file. */
export const notRegularReason = (stat: fs.Stats): string | undefined => {
  if (stat.isFile()) return undefined
  if (stat.isDirectory()) return "is a directory, not a file"
  if (stat.isFIFO()) return "is a FIFO (named pipe), not a regular file"
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "is a device, not a regular file"
  if (stat.isSocket()) return "is a socket, not a regular file"
  return "is not a regular file"
}

const isMissing = (error: unknown): boolean => ["ENOENT", "ENOTDIR"].includes(codeOf(error))

/** Where a symbolic link points, as an absolute path (not followed any further). */
const linkTarget = (link: string): string | undefined => {
  try {
    return path.resolve(path.dirname(link), fs.readlinkSync(link))
  } catch {
    return undefined
  }
}

/** Reads the whole descriptor, failing past `maxBytes` (a file can grow after it was checked). */
const readAll = (fd: number, maxBytes: number): Buffer | undefined => {
  const chunks: Array<Buffer> = []
  let total = 0
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total))
    const count = fs.readSync(fd, chunk, 0, chunk.length, null)
    if (count === 0) return Buffer.concat(chunks, total)
    chunks.push(count === chunk.length ? chunk : chunk.subarray(0, count))
    total += count
    if (total > maxBytes) return undefined
  }
}

const openFlags = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOCTTY ?? 0)

/** The path the kernel holds for an open descriptor (Linux); undefined where /proc cannot tell. */
export const openedPath = (fd: number): string | undefined => {
  if (process.platform !== "linux") return undefined
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return undefined
  }
}

/**
 * `file` (absolute, or relative to the process's directory) read as UTF-8 when it is a regular
 * file inside `root` of at most `maxBytes`; Missing when it does not exist; otherwise Refused.
 */
export const readConfined = (root: ConfinedRoot, file: string, maxBytes: number): ConfinedRead => {
  const refuse = (reason: string): ConfinedRead => ({
    _tag: "Refused",
    file,
    reason,
    note: reason.startsWith("cannot be read") ? `${file} ${reason}` : `${file} ${reason}; it was not read`
  })
  const missing: ConfinedRead = { _tag: "Missing", file }
  let realRoot: string
  try {
    realRoot = fs.realpathSync(root.dir)
  } catch {
    return missing
  }
  const lexical = path.resolve(file)
  if (!isWithin(path.resolve(root.dir), lexical) && !isWithin(realRoot, lexical)) return refuse(`is outside ${root.label}`)
  let own: fs.Stats
  try {
    own = fs.lstatSync(lexical)
  } catch (error) {
    return isMissing(error) ? missing : refuse(`cannot be read (${codeOf(error)})`)
  }
  const outside = (): string => {
    let realDir: string | undefined
    try {
      realDir = fs.realpathSync(path.dirname(lexical))
    } catch {
      realDir = undefined
    }
    return realDir !== undefined && !isWithin(realRoot, realDir)
      ? `is reached through a symbolic link to a folder outside ${root.label}`
      : `is a symbolic link to a file outside ${root.label}`
  }
  let real: string
  try {
    real = fs.realpathSync(lexical)
  } catch (error) {
    if (codeOf(error) === "ELOOP") return refuse("is a loop of symbolic links")
    if (!isMissing(error)) return refuse(`cannot be read (${codeOf(error)})`)
    // A dangling link: harmless inside the root; one aimed outside (e.g. /dev/stdin on a pipe) says so.
    const target = own.isSymbolicLink() ? linkTarget(lexical) : undefined
    return target !== undefined && !isWithin(realRoot, target) && !isWithin(path.resolve(root.dir), target) ? refuse(outside()) : missing
  }
  if (!isWithin(realRoot, real)) return refuse(outside())
  let checked: fs.Stats
  try {
    checked = fs.statSync(real)
  } catch (error) {
    return isMissing(error) ? missing : refuse(`cannot be read (${codeOf(error)})`)
  }
  const kind = notRegularReason(checked)
  if (kind !== undefined) return refuse(kind)
  if (checked.size > maxBytes) return refuse(`is larger than ${formatBytes(maxBytes)} (${checked.size} bytes)`)
  let fd: number
  try {
    fd = fs.openSync(real, openFlags)
  } catch (error) {
    if (codeOf(error) === "ELOOP") return refuse("was replaced by a symbolic link while it was read")
    return isMissing(error) ? missing : refuse(`cannot be read (${codeOf(error)})`)
  }
  try {
    const opened = fs.fstatSync(fd)
    const openedKind = notRegularReason(opened)
    if (openedKind !== undefined) return refuse(openedKind)
    if (opened.dev !== checked.dev || opened.ino !== checked.ino) return refuse("was replaced by another file while it was read")
    const where = openedPath(fd)
    if (where !== undefined && where.startsWith("/") && !isWithin(realRoot, where)) return refuse(`was moved outside ${root.label} while it was read`)
    const bytes = readAll(fd, maxBytes)
    if (bytes === undefined) return refuse(`is larger than ${formatBytes(maxBytes)}`)
    return { _tag: "Read", file, text: bytes.toString("utf8") }
  } catch (error) {
    return refuse(`cannot be read (${codeOf(error)})`)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Opens `file` for reading only when it is a regular file (links followed anywhere): checked before
 * the open, since opening a FIFO or a device can have effects of its own, and again on the open
 * descriptor, opened without blocking. The caller closes the descriptor.
 */
export const openRegularFile = (file: string): { readonly fd: number; readonly stat: fs.Stats } | { readonly refused: string } | undefined => {
  try {
    const kind = notRegularReason(fs.statSync(file))
    if (kind !== undefined) return { refused: kind }
  } catch (error) {
    return isMissing(error) ? undefined : { refused: `cannot be read (${codeOf(error)})` }
  }
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOCTTY ?? 0))
  } catch (error) {
    return isMissing(error) ? undefined : { refused: `cannot be read (${codeOf(error)})` }
  }
  let refused: string
  try {
    const stat = fs.fstatSync(fd)
    const kind = notRegularReason(stat)
    if (kind === undefined) return { fd, stat }
    refused = kind
  } catch (error) {
    refused = `cannot be read (${codeOf(error)})`
  }
  fs.closeSync(fd)
  return { refused }
}

/**
 * A file that is read but never leaves the machine (a git config the classifier inspects, a
 * plugin's manifest): no root, links followed anywhere, but only a regular file (openRegularFile),
 * at most `maxBytes`. Undefined when it is missing; `refused` says why a file that exists was not read.
 */
export const readRegularFile = (file: string, maxBytes: number): { readonly bytes: Buffer } | { readonly refused: string } | undefined => {
  const opened = openRegularFile(file)
  if (opened === undefined || "refused" in opened) return opened
  try {
    const bytes = readAll(opened.fd, maxBytes)
    return bytes === undefined ? { refused: `is larger than ${formatBytes(maxBytes)}` } : { bytes }
  } catch (error) {
    return { refused: `cannot be read (${codeOf(error)})` }
  } finally {
    fs.closeSync(opened.fd)
  }
}
