/**
 * A file Crystal writes on its own behalf, at a path it chose itself (the session's plan file):
 * every folder from `root` down to the file's is a real folder (made when missing, never followed
 * when it is a symbolic link), the file is a regular file or missing (never a link, a FIFO or a
 * device, which are refused, not replaced), and the bytes arrive atomically: a temp file in the
 * same folder, opened with O_EXCL|O_NOFOLLOW, synced, then renamed over the file. Where /proc
 * tells (Linux), the temp file's descriptor must name the folder that was checked, so a folder
 * swapped for a link while the walk ran is refused before anything is renamed into it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { notRegularReason, openedPath } from "./confined-read.ts"
import { codeOf } from "../text/error-text.ts"

export interface ConfinedTarget {
  /** The folder everything is made under (it is created when missing; links to it are fine). */
  readonly root: string
  /** The folders from `root` down to the file's, one name each ("." and ".." never among them). */
  readonly folders: ReadonlyArray<string>
  /** The file's own name. */
  readonly name: string
}

export type ConfinedWrite = { readonly _tag: "Written"; readonly file: string } | { readonly _tag: "Refused"; readonly reason: string }

const writeFlags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0)

let counter = 0

/** What is wrong with an existing entry where a real folder must be; undefined when it is one. */
const folderProblem = (stat: fs.Stats): string | undefined =>
  stat.isSymbolicLink() ? "is a symbolic link" : stat.isDirectory() ? undefined : "is not a folder"

/** What is wrong with an existing entry where the file goes; undefined when it is a regular file. */
const fileProblem = (stat: fs.Stats): string | undefined => (stat.isSymbolicLink() ? "is a symbolic link" : notRegularReason(stat))

const lstatOrUndefined = (file: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(file)
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined
    throw error
  }
}

/**
 * Writes `data` to root/folders/name as described above. `mode` is the file's; folders made on the
 * way get 0o700 when the file is owner-only, else 0o755. Never throws: a refusal says which path
 * and why, in words that follow the path ("… is a symbolic link").
 */
export const writeConfined = (target: ConfinedTarget, data: string, mode: number): ConfinedWrite => {
  const folderMode = (mode & 0o077) === 0 ? 0o700 : 0o755
  const refuse = (where: string, reason: string): ConfinedWrite => ({ _tag: "Refused", reason: `${where} ${reason}` })
  let temp: string | undefined
  try {
    if (target.folders.some((name) => name === "" || name === "." || name === ".." || name.includes(path.sep))) {
      return refuse(path.join(target.root, ...target.folders), "is not a plain folder path")
    }
    if (lstatOrUndefined(target.root) === undefined) fs.mkdirSync(target.root, { recursive: true, mode: folderMode })
    let dir = fs.realpathSync(target.root)
    for (const name of target.folders) {
      const next = path.join(dir, name)
      let stat = lstatOrUndefined(next)
      if (stat === undefined) {
        fs.mkdirSync(next, { mode: folderMode })
        stat = fs.lstatSync(next)
      }
      const problem = folderProblem(stat)
      if (problem !== undefined) return refuse(next, problem)
      dir = next
    }
    const file = path.join(dir, target.name)
    const existing = lstatOrUndefined(file)
    const existingProblem = existing === undefined ? undefined : fileProblem(existing)
    if (existingProblem !== undefined) return refuse(file, existingProblem)
    temp = path.join(dir, `.${target.name}.${process.pid}.${Date.now()}.${counter++}.tmp`)
    const fd = fs.openSync(temp, writeFlags, mode)
    try {
      const bytes = Buffer.from(data, "utf8")
      let written = 0
      while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written)
      fs.fsyncSync(fd)
      const where = openedPath(fd)
      if (where !== undefined && where.startsWith("/") && path.dirname(where) !== dir) return refuse(dir, `was replaced while the file was written (it now leads to ${path.dirname(where)})`)
    } finally {
      fs.closeSync(fd)
    }
    // Checked again right before the rename: a link planted meanwhile is refused, not replaced.
    const now = lstatOrUndefined(file)
    const nowProblem = now === undefined ? undefined : fileProblem(now)
    if (nowProblem !== undefined) return refuse(file, nowProblem)
    fs.renameSync(temp, file)
    temp = undefined
    return { _tag: "Written", file }
  } catch (error) {
    return refuse(path.join(target.root, ...target.folders, target.name), `cannot be written (${codeOf(error)})`)
  } finally {
    if (temp !== undefined) fs.rmSync(temp, { force: true })
  }
}
