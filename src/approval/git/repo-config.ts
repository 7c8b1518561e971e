/**
 * Whether a repository's own configuration makes a "read-only" git command run programs:
 * core.fsmonitor, core.pager, diff.external, filter and textconv drivers, include files, hooks
 * (`git status` writes the index, which runs post-index-change)… A hostile repository can ship
 * any of these in .git/config, so a git read in such a repository asks instead of running. The
 * same holds for every repository git enters from it — submodules, their submodules, gitlinked
 * nested repositories (git/nested-repos.ts) — so each of those is checked the same way.
 *
 * Asking rather than rewriting the command with safe overrides (`-c core.fsmonitor=false …`):
 * the classifier describes the command that will run and never changes it, and overrides cannot
 * name the filter and diff drivers a config defines without reading the config anyway.
 */
import * as path from "node:path"
import type { ConfigEntry } from "./config-file.ts"
import { discoverRepository, type GitRepository } from "./discovery.ts"
import { makeGitFiles, UnreadableGitFile, type GitFiles } from "./files.ts"
import { checkNestedRepositories, type Place } from "./nested-repos.ts"
import { isWithin } from "../path-fence.ts"
import { messageOf } from "../../text/error-text.ts"

/**
 * Keys whose value is a program git runs, or a file git reads more configuration from. Besides the
 * ones every read may run: `git help` (and any `--help`) runs the man viewer and web browser the
 * config names; a partial clone's read fetches missing objects from its promisor remote, running
 * remote.NAME.uploadpack, or any command through an `ext::` URL once protocol.allow lets it.
 */
const PROGRAM_KEY = new RegExp(
  "^(" +
    [
      "core\\.(fsmonitor|pager|editor|sshcommand|hookspath|askpass|gitproxy|alternaterefscommand|worktree)",
      "diff\\.external|diff\\..+\\.(textconv|command)|filter\\..+\\.(clean|smudge|process)|merge\\..+\\.driver|interactive\\.difffilter",
      "include\\.path|includeif\\..+\\.path|pager\\..+|sequence\\.editor|submodule\\..+\\.update",
      "gpg\\.program|gpg\\..+\\.program|gpg\\.ssh\\.defaultkeycommand|credential\\..*helper|uploadpack\\.packobjectshook",
      "man\\.viewer|man\\..+\\.(cmd|path)|help\\.browser|web\\.browser|browser\\..+\\.(cmd|path)|instaweb\\.browser",
      "difftool\\..+\\.(cmd|path)|mergetool\\..+\\.(cmd|path)|guitool\\..+\\.cmd|sendemail\\..*cmd|imap\\.tunnel",
      "remote\\..+\\.(uploadpack|receivepack)|protocol\\.(.+\\.)?allow",
      "lfs\\.extension\\..+\\.(clean|smudge)|lfs\\.customtransfer\\..+\\.path"
    ].join("|") +
    ")$"
)

const FALSE = /^(false|no|off|0|)$/i

/** The first reason the repository containing `dir`, or one git enters from it, would run a program on a read; undefined when none. */
export const repositoryRunsPrograms = (dir: string): string | undefined => {
  try {
    const found = discoverRepository(dir)
    if (found.kind === "none") return undefined
    if (found.kind === "unreadable") return found.reason
    const top = found.repository
    const files = makeGitFiles()
    return checkNestedRepositories(top, files, (repository, place) => repositoryReason(repository, place, top, files))
  } catch (error) {
    if (error instanceof UnreadableGitFile) return error.message
    // Whatever the walk did not foresee (a file system error in an odd place) asks, with its message.
    return `Crystal could not check the repository's nested repositories: ${messageOf(error)}`
  }
}

const repositoryReason = (repository: GitRepository, place: Place, top: GitRepository, files: GitFiles): string | undefined => {
  const which = place === "top" ? "the repository" : `the nested repository ${shown(repository.gitDir, top.worktree)}`
  // A submodule's git directory names its worktree (core.worktree): git's own layout, not a hostile
  // setting, when it is exactly the directory git reached the repository from — the one whose
  // gitlinks the walk follows. A git directory found under modules/ (no gitlink known) may name a
  // directory inside the top worktree or the main worktree beside `.git`: reached through its
  // gitlink, it is checked again under the exact rule.
  const ownWorktree = (value: string | undefined): boolean => {
    if (value === undefined) return false
    const target = files.resolve(repository.gitDir, value)
    if (place !== "module") return repository.worktree !== undefined && target === files.real(repository.worktree)
    const main = path.basename(top.commonDir) === ".git" ? path.dirname(top.commonDir) : undefined
    return [top.worktree, main].some((root) => root !== undefined && isWithin(files.real(root), target))
  }
  for (const each of new Set([repository.gitDir, repository.commonDir])) {
    for (const file of ["config", "config.worktree"]) {
      const parsed = files.config(path.join(each, file))
      if (parsed === undefined) continue
      if (parsed === null) return `${which} has a ${file} Crystal cannot read`
      if (!parsed.ok) return `${which} has a line in its ${file} Crystal cannot read: ${parsed.line}`
      const key = programKey(parsed.entries, (entry, value) => entry === "core.worktree" && ownWorktree(value))
      if (key !== undefined) return place === "top" ? `the repository config sets ${key}, which runs a program` : `${which} sets ${key} in its config, which runs a program`
      if (entersHistoryGitlinks(parsed.entries)) return `${place === "top" ? "the repository config" : `${which}'s config`} ${HISTORY_GITLINKS}`
    }
    const hook = activeHook(files.list(path.join(each, "hooks")))
    if (hook === null) return `${which} has a hooks directory Crystal cannot read`
    if (hook !== undefined) return `${which} has a ${hook} hook`
  }
  return undefined
}

/** A git directory as the operator reads it: relative to the top worktree when inside it. */
const shown = (gitDir: string, worktree: string | undefined): string => {
  if (worktree === undefined || !isWithin(worktree, gitDir)) return gitDir
  return path.relative(worktree, gitDir)
}

/**
 * The first program-running key of a git config file's entries, as `section.sub.name`; `allowed`
 * exempts a key and value the caller knows to be harmless.
 */
const programKey = (entries: ReadonlyArray<ConfigEntry>, allowed: (key: string, value: string | undefined) => boolean): string | undefined => {
  for (const { key, value } of entries) {
    if (key === "core.fsmonitor" && value !== undefined && FALSE.test(value)) continue
    // protocol.allow = never only forbids; any other value lets a remote's URL run a command (`ext::`).
    if (/^protocol\.(.+\.)?allow$/.test(key) && value === "never") continue
    if (allowed(key, value)) continue
    if (PROGRAM_KEY.test(key.toLowerCase()) || value?.startsWith("!") === true) return key
  }
  return undefined
}

/**
 * diff.submodule = diff: `git log -p`, `git show` and `git diff A B` show a gitlink's change as a
 * diff run in the repository now at its path, also for gitlinks only old commits have, whose
 * repositories the walk does not visit (an untracked nested repository is one). git compares the
 * value exactly; any entry counts, whichever one wins.
 */
const entersHistoryGitlinks = (entries: ReadonlyArray<ConfigEntry>): boolean => entries.some((entry) => entry.key === "diff.submodule" && entry.value === "diff")

const HISTORY_GITLINKS = "sets diff.submodule = diff: git log -p, show and diff then enter the repositories at gitlink paths of old commits, which Crystal does not check"

/** A hook git may run (any file in hooks/ other than the shipped *.sample ones); null when hooks/ cannot be listed. */
const activeHook = (names: ReadonlyArray<string> | undefined | null): string | undefined | null =>
  names === null ? null : names?.find((name) => !name.endsWith(".sample"))
