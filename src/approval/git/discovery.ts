/**
 * Which repository git uses for a directory, found the way git's own discovery does (setup.c):
 * going up from the directory, the first `.git` that is a gitfile or a valid git directory, or
 * the first directory that is itself a git directory (a bare repository, or the inside of a
 * `.git`). A `.git` directory that is not a valid repository is passed over, as git does — its
 * parent's repository is the one that runs. Nothing here runs git.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { readGitFileStart, readGitText, resolveGitPath, UnreadableGitFile } from "./files.ts"

export interface GitRepository {
  /** The repository's own git directory (`.git`, `.git/modules/NAME`, `.git/worktrees/NAME`, a bare repository). */
  readonly gitDir: string
  /** Where its shared parts live: the `commondir` file's target, or the git directory itself. */
  readonly commonDir: string
  /** The directory git works in, when known: where the `.git` was found, or the gitlink's directory. */
  readonly worktree: string | undefined
}

export type Discovered = { readonly kind: "none" } | { readonly kind: "unreadable"; readonly reason: string } | { readonly kind: "found"; readonly repository: GitRepository }

/**
 * The repository git would use when run in `dir` (without GIT_DIR and the like, which the
 * classifier asks about). git goes up from its physical working directory (getcwd), so a
 * symbolic link into a nested repository's subdirectory (`cd link && git status`) is followed first.
 */
export const discoverRepository = (dir: string): Discovered =>
  orUnreadable(() => {
    for (let current = resolveGitPath(path.resolve(dir), "."); ; current = path.dirname(current)) {
      const found = repositoryAt(current)
      // A `.git` directory that is not a repository is passed over, as git does.
      const invalid = found.kind === "found" && found.repository.gitDir === path.join(current, ".git") && !isGitDirectory(found.repository.gitDir)
      if (found.kind !== "none" && !invalid) return found
      if (isGitDirectory(current)) return { kind: "found", repository: { gitDir: current, commonDir: commonDirOf(current), worktree: undefined } }
      if (path.dirname(current) === current) return { kind: "none" }
    }
  })

/** A git file that exists but cannot be read makes the repository unreadable: the read asks. */
const orUnreadable = (body: () => Discovered): Discovered => {
  try {
    return body()
  } catch (error) {
    if (error instanceof UnreadableGitFile) return { kind: "unreadable", reason: error.message }
    throw error
  }
}

/**
 * The repository whose `.git` is directly in `dir`: the gitfile's target, or the `.git` directory
 * even when it is not a valid repository (checking one more directory is safe; discovery above
 * skips invalid ones). A gitfile that exists but cannot be read is unreadable (git would stop there).
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
  const isFile = stat.isFile()
  if (!isFile && !stat.isDirectory()) return { kind: "none" }
  return orUnreadable(() => {
    const gitDir = isFile ? readGitfile(dotGit) : dotGit
    if (gitDir === undefined) return { kind: "unreadable", reason: `${dotGit} is not a gitfile git can read` }
    return { kind: "found", repository: { gitDir, commonDir: commonDirOf(gitDir), worktree: dir } }
  })
}

const isMissing = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException).code
  return code === "ENOENT" || code === "ENOTDIR"
}

/**
 * The git directory a `.git` file points to (`gitdir: PATH`, relative to the file's directory), as
 * git's read_gitfile_gently reads it; undefined when it is not a gitfile (git stops with an error
 * there); throws UnreadableGitFile when it cannot be read.
 */
export const readGitfile = (file: string): string | undefined => {
  const text = readGitText(file)
  if (text === undefined || !text.startsWith("gitdir: ")) return undefined
  const pointer = cPath(text.slice("gitdir: ".length))
  return pointer === "" ? undefined : resolveGitPath(path.dirname(file), pointer)
}

/**
 * The `commondir` target of a git directory (linked worktrees), or the directory itself. git reads
 * the whole file, whatever its size: one Crystal cannot read throws UnreadableGitFile, so the read
 * asks rather than checking the wrong common directory.
 */
export const commonDirOf = (gitDir: string): string => {
  const text = readGitText(path.join(gitDir, "commondir"))
  if (text === undefined) return gitDir
  const pointer = cPath(text)
  return pointer === "" ? gitDir : resolveGitPath(gitDir, pointer)
}

/** A path read from a git file as git's C code uses it: trailing CR and LF stripped, then up to the first NUL. */
const cPath = (text: string): string => {
  const stripped = text.replace(/[\r\n]+$/, "")
  const nul = stripped.indexOf("\0")
  return nul === -1 ? stripped : stripped.slice(0, nul)
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

/** How much of HEAD git's validate_headref reads: what follows never matters. */
const HEAD_BYTES = 255

/**
 * git's validate_headref: a symbolic link into refs/, `ref:` then only space, tab, CR or LF then
 * `refs/`, or an object id (40 hex digits: discovery parses SHA-1 length). A HEAD that is not a
 * regular file, a link or a directory (a FIFO git would block on) throws UnreadableGitFile.
 */
const validHead = (head: string): boolean => {
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(head)
  } catch {
    return false
  }
  if (stat.isSymbolicLink()) {
    try {
      return fs.readlinkSync(head).startsWith("refs/")
    } catch {
      return false
    }
  }
  // git opens a directory, fails to read it, and calls it invalid.
  if (stat.isDirectory()) return false
  if (!stat.isFile()) throw new UnreadableGitFile(`${head} is not a regular file`)
  const text = readGitFileStart(head, HEAD_BYTES)?.toString("latin1")
  if (text === undefined) return false
  return /^ref:[ \t\n\r]*refs\//.test(text) || /^[0-9a-fA-F]{40}/.test(text)
}
