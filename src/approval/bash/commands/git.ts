/**
 * git: global options (`-C`, `-c`), then one rule per subcommand — reads, writes, network use, and
 * the ones that throw work away (reset --hard, clean -f, push --force, checkout -- paths…).
 */
import * as path from "node:path"
import type { Analyzer, Arg, Call, Handler } from "../types.ts"
import { type Parsed, literal, parse, readAll, words, writeAll } from "../args.ts"

const SAFE_GIT_CONFIG = /^(color\.|advice\.|log\.|format\.pretty|column\.|status\.|init\.defaultbranch|core\.quotepath|core\.autocrlf|core\.safecrlf|user\.name|user\.email|safe\.directory|commit\.gpgsign|tag\.gpgsign|pull\.rebase|pull\.ff|merge\.ff|diff\.noprefix|diff\.renames|diff\.algorithm|push\.default|fetch\.prune|rebase\.autostash|rerere\.enabled|i18n\.|gc\.auto|protocol\.version|http\.postbuffer|core\.abbrev|pager\.[a-z-]+=(false|true|0|1)?$)/i
const DANGEROUS_GIT_KEY =
  /^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|worktree)|alias\.|sequence\.editor|diff\.external|credential\.|gpg\.|include\.|includeif\.|uploadpack\.|receive\.|http\..*proxy|url\.|remote\..*\.(uploadpack|receivepack)|.*\.(command|cmd|helper|program|driver|textconv|clean|smudge|process|tool|path))/i

/** Global options that change nothing but output and path matching. */
const GIT_GLOBAL_FLAGS = new Set(["-C", "-c", "--no-pager", "-P", "--paginate", "-p", "--bare", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-advice", "--version", "--help", "--namespace", "--super-prefix"])

/**
 * Options of read subcommands that run a program, write a file or read outside the repository.
 * `rev-parse --show-superproject-working-tree` runs git in the superproject above, whose config
 * the classifier does not check (it runs that repository's core.fsmonitor).
 */
const GIT_UNSAFE_OPTION =
  /^(-O|--?(output|ext-diff|textconv|open-files-in-pager|exec|upload-pack|receive-pack|contents|no-index|filters|batch-command|run|tool|extcmd|config-env|lost-found|write-tree|write|show-superproject-working-tree)(=|$))/

/** The subcommand's options, once its handler judged it read-only: the repository config is checked by the classifier. */
const vetGitRead = (a: Analyzer, rest: ReadonlyArray<Arg>): void => {
  for (const arg of rest) {
    const v = arg.value
    if (v === "--") break
    if (v === undefined) continue
    if (GIT_UNSAFE_OPTION.test(v) && !/^--no-(ext-diff|textconv)$/.test(v)) a.raise("medium", "execute", `git ${v} may run a program or write`)
  }
  a.gitRead()
}

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

export const git: Handler = (a, call) => {
  const args = call.args
  const dirs: Array<Arg> = []
  let i = 0
  let gitDir: Arg | undefined = undefined
  for (; i < args.length; i++) {
    const arg = args[i] as Arg
    const v = arg.value
    if (v === undefined || !v.startsWith("-")) break
    if (v === "-C") {
      const dir = args[++i]
      if (dir !== undefined) dirs.push(dir)
      continue
    }
    if (v === "-c") {
      const setting = args[++i]?.value
      if (setting === undefined || !SAFE_GIT_CONFIG.test(setting)) a.raise("medium", "execute", "sets git configuration for this run")
      if (setting !== undefined && setting.includes("=")) gitCommandSetting(a, call, setting.slice(0, setting.indexOf("=")), setting.slice(setting.indexOf("=") + 1))
      continue
    }
    if (v === "--git-dir" || v === "--work-tree") {
      gitDir = args[++i]
      a.raise("medium", "execute", "points git at another repository, whose config may run programs")
      continue
    }
    if (v.startsWith("--git-dir=") || v.startsWith("--work-tree=")) {
      gitDir = literal(v.slice(v.indexOf("=") + 1), arg)
      a.raise("medium", "execute", "points git at another repository, whose config may run programs")
      continue
    }
    if (!GIT_GLOBAL_FLAGS.has(v)) a.raise("medium", "execute", `git ${v} is not known to be read-only`)
    if (v === "--namespace" || v === "--super-prefix") {
      i++
      continue
    }
    if (v.startsWith("--exec-path") || v.startsWith("--config-env")) {
      if (v.startsWith("--exec-path") && v.includes("=")) a.raise("medium", "execute", "runs git programs from another directory")
      if (v.startsWith("--config-env")) a.raise("medium", "execute", "sets git configuration for this run")
      if (!v.includes("=")) i++
      continue
    }
  }
  const subArg = args[i]
  const rest = args.slice(i + 1)
  const run = (): void => {
    if (subArg === undefined) return
    if (subArg.value === undefined) {
      a.raise("high", "execute", "runs a git command only known at run time")
      a.setKey(call, undefined)
      return
    }
    a.setKey(call, `${call.name} ${subArg.value}`)
    gitSubcommand(a, call, subArg.value, rest)
    if (a.frameAuthority === "read") vetGitRead(a, rest)
  }
  const inDirs = (index: number): void => {
    if (index >= dirs.length) {
      run()
      if (dirs.length > 0) a.workdir(a.frameAuthority === "read" ? "read" : "write")
      return
    }
    a.inDir(dirs[index], () => inDirs(index + 1))
  }
  inDirs(0)
  if (gitDir !== undefined) a.path(gitDir, a.frameAuthority === "read" ? "read" : "write")
}

const gitParse = (rest: ReadonlyArray<Arg>, short = "", long: ReadonlyArray<string> = []): Parsed => parse(rest, { short, long })

/** Short flag letters present in any cluster (`-fdx` has f, d and x). */
const hasLetter = (rest: ReadonlyArray<Arg>, letter: string): boolean =>
  rest.some((arg) => {
    const v = arg.value
    return v !== undefined && /^-[A-Za-z]+$/.test(v) && v.includes(letter)
  })

const gitSubcommand = (a: Analyzer, call: Call, sub: string, rest: ReadonlyArray<Arg>): void => {
  const values = rest.map((arg) => arg.value)
  const has = (...names: ReadonlyArray<string>): boolean => values.some((v) => v !== undefined && names.some((name) => v === name || v.startsWith(`${name}=`)))
  const operands = (short = "", long: ReadonlyArray<string> = []): ReadonlyArray<Arg> => gitParse(rest, short, long).operands
  const changes = (reason: string): void => a.raise("medium", "write", reason)
  const discards = (reason = "discards uncommitted changes"): void => a.raise("high", "write", reason)
  switch (sub) {
    case "diff":
    case "log":
    case "show":
    case "whatchanged": {
      const parsed = gitParse(rest, "O", ["output"])
      const output = parsed.value("--output")
      if (output !== undefined) a.write(output)
      if (has("--ext-diff")) a.raise("medium", "execute", "runs an external diff program")
      if (has("--no-index")) readAll(a, parsed.operands)
      return
    }
    case "grep":
      if (has("-O", "--open-files-in-pager")) a.raise("medium", "execute", "opens a pager program")
      return
    case "branch": {
      const parsed = gitParse(rest, "u", ["set-upstream-to", "contains", "no-contains", "merged", "no-merged", "points-at", "sort", "format", "color", "column", "abbrev"])
      const deleteFlag = parsed.has("-d", "--delete") || hasLetter(rest, "d")
      const force = parsed.has("-f", "--force") || hasLetter(rest, "f")
      if (parsed.has("-D") || hasLetter(rest, "D") || (deleteFlag && force)) return discards("deletes branches with unmerged work")
      const listing = parsed.has("-l", "--list", "-a", "--all", "-r", "--remotes", "--show-current", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at")
      const writing = deleteFlag || parsed.has("-m", "-M", "--move", "-c", "-C", "--copy", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-t", "--track", "--no-track", "--create-reflog") || force
      if (writing || (parsed.operands.length > 0 && !listing)) changes("changes branches")
      return
    }
    case "tag": {
      const parsed = gitParse(rest, "muF", ["message", "local-user", "file", "contains", "no-contains", "merged", "no-merged", "points-at", "sort", "format", "color", "column", "cleanup"])
      const listing = parsed.has("-l", "--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-v", "--verify")
      const writing = parsed.has("-a", "--annotate", "-s", "--sign", "-u", "--local-user", "-f", "--force", "-d", "--delete", "-m", "--message", "-F", "--file", "-e")
      if (writing || (parsed.operands.length > 0 && !listing)) changes("changes tags")
      return
    }
    case "remote": {
      const action = operands()[0]?.value
      if (action === undefined || action === "get-url") return
      if (action === "show" || action === "prune" || action === "update") {
        if (action === "show" && has("-n")) return
        a.network("contacts a git remote")
        return
      }
      changes("changes git remotes")
      return
    }
    case "config":
      return gitConfig(a, call, rest)
    case "stash": {
      const action = values[0]
      if (action === "list" || action === "show") return
      if (action === "drop" || action === "clear") return discards("discards stashed changes")
      changes("changes the working tree")
      return
    }
    case "worktree": {
      const action = values[0]
      if (action === "list") return
      const [, ...targets] = operands("b", ["reason"])
      if (action === "add") writeAll(a, targets.slice(0, 1))
      else if (action === "remove") {
        discards("deletes a worktree")
        writeAll(a, targets.slice(0, 1), "force-delete")
      } else changes("changes worktrees")
      return
    }
    case "reflog": {
      const action = values[0]
      if (action === "expire" || action === "delete") return discards("rewrites history")
      return
    }
    case "notes": {
      const action = values[0]
      if (action === undefined || action === "list" || action === "show") return
      changes("changes notes")
      return
    }
    case "submodule": {
      const action = operands()[0]?.value
      if (action === undefined || action === "status" || action === "summary") return
      if (action === "foreach") {
        const index = values.indexOf("foreach")
        const text = rest.slice(index + 1)
        if (text.some((arg) => arg.value === undefined)) a.raise("high", "execute", "runs a command only known at run time")
        else a.nested(text.map((arg) => arg.value as string).join(" "), call, { delegate: false })
        return
      }
      if (action === "init" || action === "deinit" || action === "absorbgitdirs" || action === "set-url" || action === "set-branch") {
        changes("changes submodules")
        return
      }
      a.network("fetches submodules")
      return
    }
    case "bisect": {
      if (values[0] === "run") {
        a.invoke(rest.slice(1), `${call.keyPrefix}git bisect run `, call.io)
        return
      }
      changes("moves HEAD")
      return
    }
    case "archive": {
      const parsed = gitParse(rest, "o", ["output", "remote", "format", "prefix", "exec"])
      if (parsed.has("--remote")) a.network("contacts a git remote")
      if (parsed.has("--exec")) a.raise("medium", "execute", "runs a remote archiver")
      a.write(parsed.value("-o", "--output"))
      return
    }
    case "rebase": {
      const parsed = gitParse(rest, "xsX", ["exec", "strategy", "strategy-option", "onto"])
      for (const command of parsed.values("-x", "--exec")) {
        if (command.value === undefined) a.raise("high", "execute", "runs a command only known at run time")
        else a.nested(command.value, call, { delegate: false })
      }
      if (parsed.has("-i", "--interactive")) a.raise("medium", "execute", "opens an editor")
      changes("rewrites commits")
      return
    }
    case "reset":
      if (has("--hard")) return discards()
      changes("moves HEAD or unstages changes")
      return
    case "clean": {
      const dryRun = has("-n", "--dry-run") || hasLetter(rest, "n")
      if (dryRun) return
      if (has("-f", "--force") || hasLetter(rest, "f")) {
        discards("deletes untracked files")
        a.workdir("write")
        return
      }
      changes("deletes untracked files")
      return
    }
    case "checkout": {
      const dashDash = values.indexOf("--")
      const parsed = gitParse(rest, "bB", ["conflict", "pathspec-from-file"])
      if (has("-f", "--force") || hasLetter(rest, "f")) return discards()
      if ((dashDash !== -1 && dashDash < values.length - 1) || parsed.operands.some((arg) => arg.value === "." || arg.glob)) return discards()
      changes("switches branches or restores files")
      return
    }
    case "switch":
      if (has("-f", "--force", "--discard-changes")) return discards()
      changes("switches branches")
      return
    case "restore": {
      const staged = has("-S", "--staged")
      const worktree = has("-W", "--worktree")
      if (staged && !worktree) return changes("unstages changes")
      return discards()
    }
    case "push": {
      a.network("pushes to a git remote")
      const parsed = gitParse(rest, "o", ["repo", "receive-pack", "exec", "push-option", "signed"])
      const force = has("--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--prune") || hasLetter(rest, "f") || hasLetter(rest, "d")
      const refspecForce = parsed.operands.slice(1).some((arg) => arg.value?.startsWith("+") === true || arg.value?.startsWith(":") === true)
      if (force || refspecForce) a.raise("high", "execute", "rewrites or deletes remote history")
      if (parsed.has("--receive-pack", "--exec")) a.raise("medium", "execute", "runs a remote program")
      return
    }
    case "clone": {
      a.network("clones a repository")
      const parsed = gitParse(rest, "obcuj", ["origin", "branch", "config", "upload-pack", "reference", "separate-git-dir", "depth", "template", "jobs", "filter", "shallow-since", "shallow-exclude", "server-option", "bundle-uri"])
      if (parsed.has("-u", "--upload-pack", "--template") || parsed.values("-c", "--config").some((c) => c.value === undefined || DANGEROUS_GIT_KEY.test(c.value))) {
        a.raise("medium", "execute", "runs programs while cloning")
      }
      const [url, directory] = parsed.operands
      if (directory !== undefined) a.write(directory)
      else if (url?.value !== undefined) a.write(literal(path.posix.basename(url.value.replace(/\/+$/, "").replace(/\.git$/, "")) || "repo", url))
      return
    }
    case "fetch":
    case "pull":
    case "ls-remote":
      if (has("--upload-pack", "--exec")) a.raise("medium", "execute", "runs a remote program")
      a.network(sub === "pull" ? "pulls from a git remote" : "contacts a git remote")
      if (sub === "pull") changes("merges into the working tree")
      return
    case "commit": {
      const parsed = gitParse(rest, "FmcCt", ["file", "message", "reuse-message", "reedit-message", "template", "author", "date", "fixup", "squash", "trailer", "pathspec-from-file", "cleanup"])
      for (const file of parsed.values("-F", "--file", "-t", "--template", "--pathspec-from-file")) if (file.value !== "-") a.read(file)
      changes("commits changes")
      return
    }
    case "add":
    case "rm":
    case "mv": {
      const parsed = gitParse(rest, "", ["chmod", "pathspec-from-file"])
      if (sub === "rm" && !parsed.has("--cached")) writeAll(a, parsed.operands, "delete")
      else if (sub === "mv") writeAll(a, parsed.operands)
      else readAll(a, parsed.operands)
      changes(sub === "add" ? "stages changes" : sub === "rm" ? "removes files" : "moves files")
      return
    }
    case "apply": {
      const parsed = gitParse(rest, "p", ["directory", "exclude", "include", "whitespace", "build-fake-ancestor"])
      readAll(a, parsed.operands)
      if (parsed.has("--unsafe-paths")) a.raise("high", "write", "applies a patch outside the repository")
      if (parsed.has("--check", "--stat", "--numstat", "--summary") && !parsed.has("--apply")) return
      changes("applies a patch")
      return
    }
    case "init": {
      const target = operands("", ["template", "separate-git-dir", "initial-branch", "object-format", "shared"])[0]
      if (target !== undefined) a.write(target)
      else a.workdir("write")
      return
    }
    case "hash-object":
      if (has("-w")) changes("writes objects")
      return
    case "symbolic-ref":
      if (has("-d", "--delete") || operands("m").length >= 2) changes("changes references")
      return
    case "lfs": {
      const action = values[0]
      if (action === undefined || ["ls-files", "status", "env", "version", "logs", "pointer"].includes(action)) return
      if (action === "track" || action === "untrack" || action === "migrate") return changes("changes LFS tracking")
      if (action === "install" || action === "uninstall") return void a.raise("medium", "execute", "installs git hooks")
      a.network("transfers LFS objects")
      return
    }
    case "filter-branch":
    case "filter-repo":
      a.raise("high", "execute", "rewrites history")
      return
    case "daemon":
    case "instaweb":
    case "http-backend":
      a.raise("high", "execute", "serves the repository over the network")
      return
    case "credential":
    case "credential-store":
    case "credential-cache":
      a.raise("high", "execute", "handles stored credentials")
      return
  }
  if (GIT_READ.has(sub)) return
  if (GIT_NETWORK.has(sub)) return a.network("contacts a git remote")
  if (GIT_WRITE.has(sub)) return changes("changes the repository")
  // Aliases, extensions (git-foo on PATH), mergetool, difftool…
  a.raise("medium", "execute")
}

/** Settings whose value is a shell command git runs: classify that command too. */
const GIT_COMMAND_KEY = /^(core\.(pager|editor|sshcommand|fsmonitor)|sequence\.editor|diff\.external|pager\.[^.]+|gpg\.program|.*\.(textconv|clean|smudge|process|cmd|command|helper))$/i

const gitCommandSetting = (a: Analyzer, call: Call, key: string, value: string | undefined): void => {
  if (value === undefined) return
  const alias = /^alias\./i.test(key) && value.startsWith("!")
  if (!alias && !GIT_COMMAND_KEY.test(key)) return
  if (!alias && /^(true|false|yes|no|on|off|[01])$/i.test(value)) return
  a.nested(alias || value.startsWith("!") ? value.slice(1) : value, call, { delegate: false })
}

const gitConfig = (a: Analyzer, call: Call, rest: ReadonlyArray<Arg>): void => {
  const parsed = parse(rest, { short: "f", long: ["file", "blob", "type", "default", "comment", "value", "url"] })
  const readFlags = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "-l", "--list", "--show-origin", "--show-scope", "--name-only", "-z", "--null"]
  const writeFlags = ["--unset", "--unset-all", "--add", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit"]
  const [first, ...others] = parsed.operands
  const action = first?.value
  const actionWords = ["get", "list", "set", "unset", "rename-section", "remove-section", "edit"]
  const isAction = action !== undefined && actionWords.includes(action)
  const reads = parsed.has(...readFlags) || action === "get" || action === "list" || (!isAction && parsed.operands.length === 1 && !parsed.has(...writeFlags))
  if (reads && !parsed.has(...writeFlags) && action !== "set" && action !== "unset") {
    const file = parsed.value("-f", "--file")
    if (file !== undefined) a.read(file)
    return
  }
  const keyArg = isAction ? others[0] : first
  const key = keyArg?.value
  if (key === undefined || DANGEROUS_GIT_KEY.test(key) || parsed.has("-e", "--edit")) a.raise("medium", "execute", "sets a program git will run")
  if (key !== undefined) gitCommandSetting(a, call, key, (isAction ? others[1] : others[0])?.value)
  const file = parsed.value("-f", "--file")
  if (file !== undefined) a.write(file)
  else if (parsed.has("--global")) a.write(a.home === undefined ? { ...literal("~/.gitconfig"), value: undefined } : literal(path.join(a.home, ".gitconfig")))
  else if (parsed.has("--system")) a.write(literal("/etc/gitconfig"))
  else {
    a.raise("medium", "write", "changes git configuration")
    // The repository's own config: a protected file (protected-files.ts), whichever directory git runs in.
    a.write(literal(".git/config"), "plain", "changes git configuration")
  }
}
