/**
 * One rule per git subcommand: reads, writes, network use, and the ones that throw work away
 * (reset --hard, clean -f, push --force, checkout -- paths…). A subcommand with no rule of its own
 * is a read, a network use or a write by its list; anything else (aliases, git-foo on PATH,
 * mergetool…) runs programs.
 */
import * as path from "node:path"
import type { Analyzer, Arg, Call } from "../types.ts"
import { type Parsed, literal, parse, readAll, words, writeAll } from "../args.ts"
import { DANGEROUS_GIT_KEY, gitConfig } from "./git-config.ts"

const GIT_READ = new Set(words(`
  status log diff show rev-parse ls-files ls-tree blame annotate grep shortlog describe rev-list cat-file whatchanged name-rev
  merge-base show-ref for-each-ref count-objects check-ignore check-attr check-ref-format check-mailmap cherry var version help
  diff-tree diff-files diff-index verify-commit verify-tag verify-pack fsck show-branch range-diff get-tar-commit-id column
  stripspace show-index merge-tree
`))
const GIT_NETWORK = new Set(["clone", "fetch", "pull", "push", "ls-remote", "send-email", "svn", "p4", "cvsimport"])
const GIT_WRITE = new Set(words(`
  add commit merge apply am cherry-pick revert rm mv init update-index update-ref gc prune repack format-patch mktag mktree
  commit-tree read-tree write-tree checkout-index merge-file replace maintenance pack-refs prune-packed symbolic-ref hash-object
  sparse-checkout fast-import unpack-objects commit-graph multi-pack-index update-server-info rerere bundle mailsplit notes worktree
  stash branch tag remote config reflog submodule bisect archive rebase reset clean checkout switch restore lfs
`))

const gitParse = (rest: ReadonlyArray<Arg>, short = "", long: ReadonlyArray<string> = []): Parsed => parse(rest, { short, long })

/** Short flag letters present in any cluster (`-fdx` has f, d and x). */
const hasLetter = (rest: ReadonlyArray<Arg>, letter: string): boolean =>
  rest.some((arg) => {
    const v = arg.value
    return v !== undefined && /^-[A-Za-z]+$/.test(v) && v.includes(letter)
  })

/** One git subcommand's call, with the questions every rule asks of it. */
interface GitCall {
  readonly a: Analyzer
  readonly call: Call
  readonly sub: string
  readonly rest: ReadonlyArray<Arg>
  readonly values: ReadonlyArray<string | undefined>
  /** An option is given (`--name` or `--name=value`). */
  readonly has: (...names: ReadonlyArray<string>) => boolean
  readonly operands: (short?: string, long?: ReadonlyArray<string>) => ReadonlyArray<Arg>
  readonly changes: (reason: string) => void
  readonly discards: (reason?: string) => void
}

type GitRule = (g: GitCall) => void

const outputOptions: GitRule = ({ a, rest, has }) => {
  const parsed = gitParse(rest, "O", ["output"])
  const output = parsed.value("--output")
  if (output !== undefined) a.write(output)
  if (has("--ext-diff")) a.raise("medium", "execute", "runs an external diff program")
  if (has("--no-index")) readAll(a, parsed.operands)
}

const branch: GitRule = ({ rest, changes, discards }) => {
  const parsed = gitParse(rest, "u", ["set-upstream-to", "contains", "no-contains", "merged", "no-merged", "points-at", "sort", "format", "color", "column", "abbrev"])
  const deleteFlag = parsed.has("-d", "--delete") || hasLetter(rest, "d")
  const force = parsed.has("-f", "--force") || hasLetter(rest, "f")
  if (parsed.has("-D") || hasLetter(rest, "D") || (deleteFlag && force)) return discards("deletes branches with unmerged work")
  const listing = parsed.has("-l", "--list", "-a", "--all", "-r", "--remotes", "--show-current", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at")
  const writing =
    deleteFlag ||
    parsed.has("-m", "-M", "--move", "-c", "-C", "--copy", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-t", "--track", "--no-track", "--create-reflog") ||
    force
  if (writing || (parsed.operands.length > 0 && !listing)) changes("changes branches")
}

const tag: GitRule = ({ rest, changes }) => {
  const parsed = gitParse(rest, "muF", ["message", "local-user", "file", "contains", "no-contains", "merged", "no-merged", "points-at", "sort", "format", "color", "column", "cleanup"])
  const listing = parsed.has("-l", "--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-v", "--verify")
  const writing = parsed.has("-a", "--annotate", "-s", "--sign", "-u", "--local-user", "-f", "--force", "-d", "--delete", "-m", "--message", "-F", "--file", "-e")
  if (writing || (parsed.operands.length > 0 && !listing)) changes("changes tags")
}

const remote: GitRule = ({ a, has, operands, changes }) => {
  const action = operands()[0]?.value
  if (action === undefined || action === "get-url") return
  if (action === "show" || action === "prune" || action === "update") {
    if (action !== "show" || !has("-n")) a.network("contacts a git remote")
    return
  }
  changes("changes git remotes")
}

const stash: GitRule = ({ values, changes, discards }) => {
  const action = values[0]
  if (action === "list" || action === "show") return
  if (action === "drop" || action === "clear") return discards("discards stashed changes")
  changes("changes the working tree")
}

const worktree: GitRule = ({ a, values, operands, changes, discards }) => {
  const action = values[0]
  if (action === "list") return
  const [, ...targets] = operands("b", ["reason"])
  if (action === "add") writeAll(a, targets.slice(0, 1))
  else if (action === "remove") {
    discards("deletes a worktree")
    writeAll(a, targets.slice(0, 1), "force-delete")
  } else changes("changes worktrees")
}

const submodule: GitRule = ({ a, call, rest, values, operands, changes }) => {
  const action = operands()[0]?.value
  if (action === undefined || action === "status" || action === "summary") return
  if (action === "foreach") {
    const text = rest.slice(values.indexOf("foreach") + 1)
    if (text.some((arg) => arg.value === undefined)) a.raise("high", "execute", "runs a command only known at run time")
    // It runs in each submodule's directory.
    else a.inRuntimeDir(() => a.nested(text.map((arg) => arg.value as string).join(" "), call, { delegate: false }))
    return
  }
  if (["init", "deinit", "absorbgitdirs", "set-url", "set-branch"].includes(action)) return changes("changes submodules")
  a.network("fetches submodules")
}

const archive: GitRule = ({ a, rest }) => {
  const parsed = gitParse(rest, "o", ["output", "remote", "format", "prefix", "exec"])
  if (parsed.has("--remote")) a.network("contacts a git remote")
  if (parsed.has("--exec")) a.raise("medium", "execute", "runs a remote archiver")
  a.write(parsed.value("-o", "--output"))
}

const rebase: GitRule = ({ a, call, rest, changes }) => {
  const parsed = gitParse(rest, "xsX", ["exec", "strategy", "strategy-option", "onto"])
  for (const command of parsed.values("-x", "--exec")) {
    if (command.value === undefined) a.raise("high", "execute", "runs a command only known at run time")
    else a.nested(command.value, call, { delegate: false })
  }
  if (parsed.has("-i", "--interactive")) a.raise("medium", "execute", "opens an editor")
  changes("rewrites commits")
}

const clean: GitRule = ({ a, rest, has, changes, discards }) => {
  if (has("-n", "--dry-run") || hasLetter(rest, "n")) return
  if (has("-f", "--force") || hasLetter(rest, "f")) {
    discards("deletes untracked files")
    a.workdir("write")
    return
  }
  changes("deletes untracked files")
}

const checkout: GitRule = ({ rest, values, has, changes, discards }) => {
  const dashDash = values.indexOf("--")
  const parsed = gitParse(rest, "bB", ["conflict", "pathspec-from-file"])
  if (has("-f", "--force") || hasLetter(rest, "f")) return discards()
  if ((dashDash !== -1 && dashDash < values.length - 1) || parsed.operands.some((arg) => arg.value === "." || arg.glob)) return discards()
  changes("switches branches or restores files")
}

const restore: GitRule = ({ has, changes, discards }) => {
  const staged = has("-S", "--staged")
  const worktreeToo = has("-W", "--worktree")
  if (staged && !worktreeToo) return changes("unstages changes")
  discards()
}

const push: GitRule = ({ a, rest, has }) => {
  a.network("pushes to a git remote")
  const parsed = gitParse(rest, "o", ["repo", "receive-pack", "exec", "push-option", "signed"])
  const force = has("--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--prune") || hasLetter(rest, "f") || hasLetter(rest, "d")
  const refspecForce = parsed.operands.slice(1).some((arg) => arg.value?.startsWith("+") === true || arg.value?.startsWith(":") === true)
  if (force || refspecForce) a.raise("high", "execute", "rewrites or deletes remote history")
  if (parsed.has("--receive-pack", "--exec")) a.raise("medium", "execute", "runs a remote program")
}

const clone: GitRule = ({ a, rest }) => {
  a.network("clones a repository")
  const parsed = gitParse(rest, "obcuj", [
    "origin", "branch", "config", "upload-pack", "reference", "separate-git-dir", "depth", "template", "jobs", "filter", "shallow-since", "shallow-exclude", "server-option", "bundle-uri"
  ])
  if (parsed.has("-u", "--upload-pack", "--template") || parsed.values("-c", "--config").some((c) => c.value === undefined || DANGEROUS_GIT_KEY.test(c.value))) {
    a.raise("medium", "execute", "runs programs while cloning")
  }
  const [url, directory] = parsed.operands
  if (directory !== undefined) a.write(directory)
  else if (url?.value !== undefined) a.write(literal(path.posix.basename(url.value.replace(/\/+$/, "").replace(/\.git$/, "")) || "repo", url))
}

const fetching: GitRule = ({ a, sub, has, changes }) => {
  if (has("--upload-pack", "--exec")) a.raise("medium", "execute", "runs a remote program")
  a.network(sub === "pull" ? "pulls from a git remote" : "contacts a git remote")
  if (sub === "pull") changes("merges into the working tree")
}

const commit: GitRule = ({ a, rest, changes }) => {
  const parsed = gitParse(rest, "FmcCt", ["file", "message", "reuse-message", "reedit-message", "template", "author", "date", "fixup", "squash", "trailer", "pathspec-from-file", "cleanup"])
  for (const file of parsed.values("-F", "--file", "-t", "--template", "--pathspec-from-file")) if (file.value !== "-") a.read(file)
  changes("commits changes")
}

const stage: GitRule = ({ a, sub, rest, changes }) => {
  const parsed = gitParse(rest, "", ["chmod", "pathspec-from-file"])
  if (sub === "rm" && !parsed.has("--cached")) writeAll(a, parsed.operands, "delete")
  else if (sub === "mv") writeAll(a, parsed.operands)
  else readAll(a, parsed.operands)
  changes(sub === "add" ? "stages changes" : sub === "rm" ? "removes files" : "moves files")
}

const apply: GitRule = ({ a, rest, changes }) => {
  const parsed = gitParse(rest, "p", ["directory", "exclude", "include", "whitespace", "build-fake-ancestor"])
  readAll(a, parsed.operands)
  if (parsed.has("--unsafe-paths")) a.raise("high", "write", "applies a patch outside the repository")
  if (parsed.has("--check", "--stat", "--numstat", "--summary") && !parsed.has("--apply")) return
  changes("applies a patch")
}

const lfs: GitRule = ({ a, values, changes }) => {
  const action = values[0]
  if (action === undefined || ["ls-files", "status", "env", "version", "logs", "pointer"].includes(action)) return
  if (action === "track" || action === "untrack" || action === "migrate") return changes("changes LFS tracking")
  if (action === "install" || action === "uninstall") return void a.raise("medium", "execute", "installs git hooks")
  a.network("transfers LFS objects")
}

const raising =
  (risk: "high", reason: string): GitRule =>
  ({ a }) =>
    a.raise(risk, "execute", reason)

const rules: Readonly<Record<string, GitRule>> = {
  diff: outputOptions,
  log: outputOptions,
  show: outputOptions,
  whatchanged: outputOptions,
  grep: ({ a, has }) => {
    if (has("-O", "--open-files-in-pager")) a.raise("medium", "execute", "opens a pager program")
  },
  branch,
  tag,
  remote,
  config: ({ a, call, rest }) => gitConfig(a, call, rest),
  stash,
  worktree,
  reflog: ({ values, discards }) => {
    if (values[0] === "expire" || values[0] === "delete") discards("rewrites history")
  },
  notes: ({ values, changes }) => {
    if (values[0] !== undefined && values[0] !== "list" && values[0] !== "show") changes("changes notes")
  },
  submodule,
  bisect: ({ a, call, rest, values, changes }) => {
    if (values[0] === "run") a.invoke(rest.slice(1), `${call.keyPrefix}git bisect run `, call.io)
    else changes("moves HEAD")
  },
  archive,
  rebase,
  reset: ({ has, changes, discards }) => (has("--hard") ? discards() : changes("moves HEAD or unstages changes")),
  clean,
  checkout,
  switch: ({ has, changes, discards }) => (has("-f", "--force", "--discard-changes") ? discards() : changes("switches branches")),
  restore,
  push,
  clone,
  fetch: fetching,
  pull: fetching,
  "ls-remote": fetching,
  commit,
  add: stage,
  rm: stage,
  mv: stage,
  apply,
  init: ({ a, operands }) => {
    const target = operands("", ["template", "separate-git-dir", "initial-branch", "object-format", "shared"])[0]
    if (target !== undefined) a.write(target)
    else a.workdir("write")
  },
  "hash-object": ({ has, changes }) => {
    if (has("-w")) changes("writes objects")
  },
  "symbolic-ref": ({ has, operands, changes }) => {
    if (has("-d", "--delete") || operands("m").length >= 2) changes("changes references")
  },
  lfs,
  "filter-branch": raising("high", "rewrites history"),
  "filter-repo": raising("high", "rewrites history"),
  daemon: raising("high", "serves the repository over the network"),
  instaweb: raising("high", "serves the repository over the network"),
  "http-backend": raising("high", "serves the repository over the network"),
  credential: raising("high", "handles stored credentials"),
  "credential-store": raising("high", "handles stored credentials"),
  "credential-cache": raising("high", "handles stored credentials")
}

export const gitSubcommand = (a: Analyzer, call: Call, sub: string, rest: ReadonlyArray<Arg>): void => {
  const values = rest.map((arg) => arg.value)
  const changes = (reason: string): void => a.raise("medium", "write", reason)
  const rule = Object.hasOwn(rules, sub) ? rules[sub] : undefined
  if (rule !== undefined) {
    return rule({
      a,
      call,
      sub,
      rest,
      values,
      has: (...names) => values.some((v) => v !== undefined && names.some((name) => v === name || v.startsWith(`${name}=`))),
      operands: (short = "", long = []) => gitParse(rest, short, long).operands,
      changes,
      discards: (reason = "discards uncommitted changes") => a.raise("high", "write", reason)
    })
  }
  if (GIT_READ.has(sub)) return
  if (GIT_NETWORK.has(sub)) return a.network("contacts a git remote")
  if (GIT_WRITE.has(sub)) return changes("changes the repository")
  // Aliases, extensions (git-foo on PATH), mergetool, difftool…
  a.raise("medium", "execute")
}
