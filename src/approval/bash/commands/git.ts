/**
 * git: global options (`-C`, `-c`, `--git-dir`…), then the subcommand's rule (git-subcommands.ts),
 * and a read's options vetted once more. Configuration: git-config.ts.
 */
import type { Analyzer, Arg, Handler } from "../types.ts"
import { literal, mayBeOptionAtRunTime } from "../args.ts"
import { gitCommandSetting, SAFE_GIT_CONFIG } from "./git-config.ts"
import { gitSubcommand } from "./git-subcommands.ts"

/** Global options that change nothing but output and path matching. */
const GIT_GLOBAL_FLAGS = new Set(["-C", "-c", "--no-pager", "-P", "--paginate", "-p", "--bare", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-advice", "--version", "--help", "--namespace", "--super-prefix"])

/**
 * Options of read subcommands that run a program, write a file or read outside the repository.
 * `rev-parse --show-superproject-working-tree` runs git in the superproject above, whose config
 * the classifier does not check (it runs that repository's core.fsmonitor).
 */
const GIT_UNSAFE_OPTION =
  /^(-O|--?(output|ext-diff|textconv|open-files-in-pager|exec|upload-pack|receive-pack|contents|no-index|filters|batch-command|run|tool|extcmd|config-env|lost-found|write-tree|write|show-superproject-working-tree)(=|$))/

/**
 * `--submodule=diff` shows a gitlink's change as a diff run in the repository now at its path, also
 * for gitlinks only old commits have, whose repositories the nested-repository check does not visit.
 */
const HISTORY_GITLINKS = "--submodule=diff enters the repositories at gitlink paths of old commits, which Crystal does not check"

/**
 * An argument whose text is only known at run time, or a glob whose matches may start with `-`,
 * may be any option: `for f in $(git ls-files); do git log -p $f; done` in a repository that
 * tracks a file named `--output=../.bashrc` writes there.
 */
const mayBeAnyOption = (arg: Arg): boolean => {
  const globFromStart = (value: string, glob: boolean): boolean => glob && /^[*?[]/.test(value)
  if (arg.value !== undefined) return globFromStart(arg.value, arg.glob)
  return mayBeOptionAtRunTime(arg) || arg.candidates?.some((each) => globFromStart(each.value, each.glob)) === true
}

/** The subcommand's options, once its handler judged it read-only: the repository config is checked by the classifier. */
const vetGitRead = (a: Analyzer, rest: ReadonlyArray<Arg>): void => {
  for (const [index, arg] of rest.entries()) {
    const v = arg.value
    if (v === "--") break
    if (mayBeAnyOption(arg)) a.raise("medium", "execute", "passes git an argument only known at run time, which may be an option that writes or runs a program (put it after --)")
    if (v === undefined) continue
    if (GIT_UNSAFE_OPTION.test(v) && !/^--no-(ext-diff|textconv)$/.test(v)) a.raise("medium", "execute", `git ${v} may run a program or write`)
    if (v === "--submodule=diff" || (v === "--submodule" && rest[index + 1]?.value === "diff")) a.raise("medium", "execute", HISTORY_GITLINKS)
  }
  a.gitRead()
}

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
