/**
 * Whether a repository's own configuration makes a "read-only" git command run programs:
 * core.fsmonitor, core.pager, diff.external, filter and textconv drivers, include files, hooks
 * (`git status` writes the index, which runs post-index-change)… A hostile repository can ship
 * any of these in .git/config, so a git read in such a repository asks instead of running.
 *
 * Asking rather than rewriting the command with safe overrides (`-c core.fsmonitor=false …`):
 * the classifier describes the command that will run and never changes it, and overrides cannot
 * name the filter and diff drivers a config defines without reading the config anyway.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { readRegularFile } from "../files/confined-read.ts"

/** Keys whose value is a program git runs, or a file git reads more configuration from. */
const PROGRAM_KEY =
  /^(core\.(fsmonitor|pager|editor|sshcommand|hookspath|askpass|gitproxy|alternaterefscommand|worktree)|diff\.external|diff\..+\.(textconv|command)|filter\..+\.(clean|smudge|process)|merge\..+\.driver|include\.path|includeif\..+\.path|pager\..+|sequence\.editor|gpg\.program|gpg\..+\.program|credential\..*helper|uploadpack\.packobjectshook|submodule\..+\.update|sendemail\..*cmd|interactive\.difffilter|core\.fsmonitorhookversion)$/

const FALSE = /^(false|no|off|0|)$/i

/** The first reason the repository containing `dir` would run a program on a read; undefined when none. */
export const repositoryRunsPrograms = (dir: string): string | undefined => {
  const gitDir = findGitDir(dir)
  if (gitDir === undefined) return undefined
  if (gitDir === null) return "its .git cannot be read"
  const dirs = [gitDir]
  const common = readText(path.join(gitDir, "commondir"))
  if (typeof common === "string") dirs.push(path.resolve(gitDir, common.trim()))
  for (const each of dirs) {
    for (const file of ["config", "config.worktree"]) {
      const text = readText(path.join(each, file))
      // A FIFO or a device there would hang git (and this check); what git would read is unknown.
      if (typeof text === "object") return `the repository config ${path.join(each, file)} ${text.refused}`
      const key = text === undefined ? undefined : programKey(text)
      if (key !== undefined) return `the repository config sets ${key}, which runs a program`
    }
    const hook = activeHook(path.join(each, "hooks"))
    if (hook !== undefined) return `the repository has a ${hook} hook`
  }
  return undefined
}

/** The .git directory for `dir` (undefined: not in a repository; null: one that cannot be read). */
const findGitDir = (dir: string): string | null | undefined => {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const dotGit = path.join(current, ".git")
    let stat: fs.Stats | undefined
    try {
      stat = fs.statSync(dotGit)
    } catch {
      stat = undefined
    }
    if (stat?.isDirectory() === true) return dotGit
    if (stat?.isFile() === true) {
      const text = readText(dotGit)
      const pointer = /^gitdir:\s*(.+)$/m.exec(typeof text === "string" ? text : "")?.[1]
      return pointer === undefined ? null : path.resolve(current, pointer.trim())
    }
    if (path.dirname(current) === current) return undefined
  }
}

/** A git file's text; undefined when missing; `refused` when it is there but not a regular file of sane size (never opened then). */
const readText = (file: string): string | { readonly refused: string } | undefined => {
  const read = readRegularFile(file, maxGitFileBytes)
  if (read === undefined) return undefined
  return "refused" in read ? read : read.bytes.toString("utf8")
}

const maxGitFileBytes = 1024 * 1024

/** The first program-running key of a git config file's text, as `section.sub.name`. */
export const programKey = (text: string): string | undefined => {
  let section = ""
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.trim()
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    const header = /^\[\s*([^\]\s"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line)
    if (header !== null) {
      section = header[2] === undefined ? (header[1] ?? "").toLowerCase() : `${(header[1] ?? "").toLowerCase()}.${header[2]}`
      line = (header[3] ?? "").trim()
      if (line === "") continue
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line)
    if (entry === null) return `${section}.? (a line it cannot read)`
    const name = (entry[1] ?? "").toLowerCase()
    const value = (entry[2] ?? "").trim()
    const key = `${section}.${name}`
    if (key === "core.fsmonitor" && FALSE.test(value.replace(/^"|"$/g, ""))) continue
    if (key === "core.fsmonitorhookversion") continue
    if (PROGRAM_KEY.test(key.toLowerCase()) || value.startsWith("!")) return key
  }
  return undefined
}

/** A hook git may run (any file in hooks/ other than the shipped *.sample ones). */
const activeHook = (hooks: string): string | undefined => {
  let names: Array<string>
  try {
    names = fs.readdirSync(hooks)
  } catch {
    return undefined
  }
  return names.find((name) => !name.endsWith(".sample"))
}
