/**
 * Every repository a git read may enter from the one it runs in. `git status`, `git diff`,
 * `git describe --dirty`, `--recurse-submodules` and `--submodule=diff` run a git process (or
 * open the repository) in each populated gitlink — with or without a .gitmodules entry, at any
 * depth — and that repository's config and hooks run there (checked with git 2.39: a
 * core.fsmonitor, clean filter or post-index-change hook in `.git/modules/NAME` runs on a plain
 * `git status` of the superproject; untracked nested repositories are not entered).
 *
 * So the walk visits, from the top repository: every git directory under `<common>/modules/**`
 * (nested modules live in `modules/a/modules/b`), and every gitlink of the index and path of
 * .gitmodules whose directory holds a `.git` (a directory, or a gitfile followed wherever it
 * points), recursively, once per git directory and worktree, within bounds. A repository reached
 * through a gitlink must work in that gitlink's directory (the check asks for any other
 * core.worktree), so its own gitlinks are found where git finds them. What it cannot read is a
 * reason to ask.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { commonDirOf, repositoryAt, type GitRepository } from "./discovery.ts"
import type { GitFiles } from "./files.ts"
import { indexGitlinks } from "./index-file.ts"

/** How git reaches a repository: the one it runs in, a populated gitlink, or a git directory under modules/. */
export type Place = "top" | "gitlink" | "module"

/** The first reason `check` gives for a repository; undefined when every repository passes. */
export type RepositoryCheck = (repository: GitRepository, place: Place) => string | undefined

/** Each submodule counts twice: its git directory under modules/, and through its gitlink. */
const MAX_REPOSITORIES = 512
const MAX_DEPTH = 16
const MAX_ENTRIES = 4096

interface Pending {
  readonly repository: GitRepository
  readonly place: Place
  readonly depth: number
}

/** Runs `check` on `top` and on every repository git may enter from it; the first reason, or why the walk could not finish. */
export const checkNestedRepositories = (top: GitRepository, files: GitFiles, check: RepositoryCheck): string | undefined => {
  // Keyed by git directory and worktree: a submodule's git directory is checked once as found under
  // modules/ and again as reached through its gitlink, where its core.worktree must name that gitlink.
  const checked = new Set<string>()
  const listed = new Set<string>()
  const queue: Array<Pending> = [{ repository: top, place: "top", depth: 0 }]
  let examined = 0
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { repository, place, depth } = next
    if (depth > MAX_DEPTH) return `its nested repositories go more than ${MAX_DEPTH} levels deep`
    const key = `${repository.gitDir}\0${repository.worktree ?? ""}`
    if (checked.has(key)) continue
    checked.add(key)
    if (checked.size > MAX_REPOSITORIES) return `it has more than ${MAX_REPOSITORIES} nested repositories`
    const reason = check(repository, place)
    if (reason !== undefined) return reason
    if (!listed.has(repository.gitDir)) {
      listed.add(repository.gitDir)
      const modules = new Set([path.join(repository.commonDir, "modules"), path.join(repository.gitDir, "modules")])
      for (const dir of modules) {
        const found = moduleGitDirs(dir)
        if (typeof found === "string") return found
        examined += found.length
        for (const gitDir of found) queue.push({ repository: { gitDir, commonDir: commonDirOf(gitDir), worktree: undefined }, place: "module", depth: depth + 1 })
      }
    }
    // The check made sure git works in this directory (any other core.worktree asks): its gitlinks are relative to it.
    if (repository.worktree === undefined) continue
    const paths = nestedPaths(repository, repository.worktree, files)
    if (typeof paths === "string") return paths
    examined += paths.length
    if (examined > MAX_ENTRIES) return `it has more than ${MAX_ENTRIES} submodules and gitlinks to check`
    for (const relative of paths) {
      const found = repositoryAt(path.join(repository.worktree, relative))
      if (found.kind === "unreadable") return `its nested repository ${relative}: ${found.reason}`
      if (found.kind === "found") queue.push({ repository: found.repository, place: "gitlink", depth: depth + 1 })
    }
  }
  return undefined
}

/** The gitlinks of the repository's index and the paths .gitmodules names (a superset of what git enters). */
const nestedPaths = (repository: GitRepository, worktree: string, files: GitFiles): ReadonlyArray<string> | string => {
  const hashBytes = objectIdBytes(repository.commonDir, files)
  if (typeof hashBytes === "string") return hashBytes
  const gitlinks = indexGitlinks(repository.gitDir, hashBytes)
  if (!gitlinks.ok) return gitlinks.reason
  const declared = gitmodulesPaths(path.join(worktree, ".gitmodules"), files)
  if (typeof declared === "string") return declared
  return [...new Set([...gitlinks.paths, ...declared])]
}

/** The length of the repository's object ids: 20 (SHA-1) unless extensions.objectFormat says sha256. */
const objectIdBytes = (commonDir: string, files: GitFiles): number | string => {
  const parsed = files.config(path.join(commonDir, "config"))
  if (parsed === undefined) return 20
  if (parsed === null) return "its config cannot be read"
  if (!parsed.ok) return `its config has a line Crystal cannot read: ${parsed.line}`
  const format = parsed.entries.findLast((entry) => entry.key === "extensions.objectformat")?.value?.toLowerCase()
  if (format === undefined || format === "sha1") return 20
  if (format === "sha256") return 32
  return `its object format ${format} is not one Crystal reads`
}

const gitmodulesPaths = (file: string, files: GitFiles): ReadonlyArray<string> | string => {
  const parsed = files.config(file)
  if (parsed === undefined) return []
  if (parsed === null) return `${file} cannot be read`
  if (!parsed.ok) return `${file} has a line Crystal cannot read: ${parsed.line}`
  return parsed.entries.filter((entry) => /^submodule\..+\.path$/.test(entry.key) && entry.value !== undefined && entry.value !== "").map((entry) => entry.value as string)
}

/**
 * The git directories under a `modules` directory. Module names may hold slashes
 * (`modules/a/b`), so a directory that is not a git directory itself is searched further.
 */
const moduleGitDirs = (modules: string): ReadonlyArray<string> | string => {
  const found: Array<string> = []
  const pending = [modules]
  let visited = 0
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let names: Array<string>
    try {
      // Most repositories have no modules/: a stat is cheaper than the error a read throws.
      if (dir === modules && fs.statSync(dir, { throwIfNoEntry: false }) === undefined) return found
      names = fs.readdirSync(dir)
    } catch (error) {
      if (dir === modules && (error as NodeJS.ErrnoException).code === "ENOTDIR") return found
      return `${dir} cannot be read`
    }
    for (const name of names) {
      const child = path.join(dir, name)
      if (++visited > MAX_ENTRIES) return `${modules} holds more than ${MAX_ENTRIES} directories to check`
      let stat: fs.Stats | undefined
      try {
        stat = fs.statSync(child, { throwIfNoEntry: false })
      } catch {
        return `${child} cannot be read`
      }
      if (stat?.isDirectory() !== true) continue
      if (fs.existsSync(path.join(child, "HEAD")) || fs.existsSync(path.join(child, "config"))) found.push(child)
      else pending.push(child)
    }
  }
  return found
}
