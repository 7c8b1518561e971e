/**
 * Which repository git uses for a directory, found the way git's own discovery does (setup.c):
 * going up from the directory, the first `.git` that is a gitfile or a valid git directory, or
 * the first directory that is itself a git directory (a bare repository, or the inside of a
 * `.git`). A `.git` directory that is not a valid repository is passed over, as git does — its
 * parent's repository is the one that runs. Nothing here runs git.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { readGitFile } from "./files.ts"

export interface GitRepository {
  /** The repository's own git directory (`.git`, `.git/modules/NAME`, `.git/worktrees/NAME`, a bare repository). */
  readonly gitDir: string
  /** Where its shared parts live: the `commondir` file's target, or the git directory itself. */
  readonly commonDir: string
  /** The directory git works in, when known: where the `.git` was found, or the gitlink's directory. */
  readonly worktree: string | undefined
}

export type Discovered = { readonly kind: "none" } | { readonly kind: "unreadable"; readonly reason: string } | { readonly kind: "found"; readonly repository: GitRepository }

/** The repository git would use when run in `dir` (without GIT_DIR and the like, which the classifier asks about). */
export const discoverRepository = (dir: string): Discovered => {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const found = repositoryAt(current)
    // A `.git` directory that is not a repository is passed over, as git does.
    const invalid = found.kind === "found" && found.repository.gitDir === path.join(current, ".git") && !isGitDirectory(found.repository.gitDir)
    if (found.kind !== "none" && !invalid) return found
    if (isGitDirectory(current)) return { kind: "found", repository: { gitDir: current, commonDir: commonDirOf(current), worktree: undefined } }
    if (path.dirname(current) === current) return { kind: "none" }
  }
}

/**
 * The repository whose `.git` is directly in `dir`: the gitfile's target, or the `.git` directory
 * even when it is not a valid repository (checking one more directory is safe; discovery above
 * skips invalid ones).
 */
export const repositoryAt = (dir: string): Discovered => {
  const dotGit = path.join(dir, ".git")
  let stat: fs.Stats | undefined
  try {
    stat = fs.statSync(dotGit, { throwIfNoEntry: false })
  } catch (error) {
    if (isMissing(error)) return { kind: "none" }
    return { kind: "unreadable", reason: `${dotGit} cannot be read` }
  }
  if (stat === undefined) return { kind: "none" }
  if (stat.isFile()) {
    const gitDir = readGitfile(dotGit)
    if (gitDir === undefined) return { kind: "unreadable", reason: `${dotGit} is not a gitfile git can read` }
    return { kind: "found", repository: { gitDir, commonDir: commonDirOf(gitDir), worktree: dir } }
  }
  if (!stat.isDirectory()) return { kind: "none" }
  return { kind: "found", repository: { gitDir: dotGit, commonDir: commonDirOf(dotGit), worktree: dir } }
}

const isMissing = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException).code
  return code === "ENOENT" || code === "ENOTDIR"
}

/** The git directory a `.git` file points to (`gitdir: PATH`, relative to the file's directory), as git reads it. */
export const readGitfile = (file: string): string | undefined => {
  const text = readGitFile(file)?.toString("utf8")
  if (text === undefined || !text.startsWith("gitdir: ")) return undefined
  const pointer = text.slice("gitdir: ".length).replace(/[\r\n]+$/, "")
  return pointer === "" ? undefined : path.resolve(path.dirname(file), pointer)
}

/** The `commondir` target of a git directory (linked worktrees), or the directory itself. */
export const commonDirOf = (gitDir: string): string => {
  const file = path.join(gitDir, "commondir")
  const text = readGitFile(file)?.toString("utf8")
  if (text === undefined) return gitDir
  const pointer = text.replace(/[\r\n]+$/, "")
  return pointer === "" ? gitDir : path.resolve(gitDir, pointer)
}

/** git's is_git_directory: a valid HEAD, and `objects` and `refs` searchable in the common directory. */
export const isGitDirectory = (dir: string): boolean => {
  if (!validHead(path.join(dir, "HEAD"))) return false
  const common = commonDirOf(dir)
  return searchable(path.join(common, "objects")) && searchable(path.join(common, "refs"))
}

const searchable = (dir: string): boolean => {
  try {
    fs.accessSync(dir, fs.constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** git's validate_headref: a symbolic link into refs/, `ref: refs/…`, or an object id. */
const validHead = (head: string): boolean => {
  try {
    if (fs.lstatSync(head).isSymbolicLink()) return fs.readlinkSync(head).startsWith("refs/")
    const text = readGitFile(head)?.toString("latin1")
    if (text === undefined) return false
    return /^ref:\s*refs\//.test(text) || /^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})/.test(text)
  } catch {
    return false
  }
}
