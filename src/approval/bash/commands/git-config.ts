/** git configuration: `git config` reads and writes, and settings (`-c`, `git config KEY VALUE`) whose value is a program git runs. */
import * as path from "node:path"
import type { Analyzer, Arg, Call } from "../types.ts"
import { literal, parse } from "../args.ts"

/** Settings that change only output, identity and the like: `git -c` with one of them stays a read. */
export const SAFE_GIT_CONFIG = /^(color\.|advice\.|log\.|format\.pretty|column\.|status\.|init\.defaultbranch|core\.quotepath|core\.autocrlf|core\.safecrlf|user\.name|user\.email|safe\.directory|commit\.gpgsign|tag\.gpgsign|pull\.rebase|pull\.ff|merge\.ff|diff\.noprefix|diff\.renames|diff\.algorithm|push\.default|fetch\.prune|rebase\.autostash|rerere\.enabled|i18n\.|gc\.auto|protocol\.version|http\.postbuffer|core\.abbrev|pager\.[a-z-]+=(false|true|0|1)?$)/i
export const DANGEROUS_GIT_KEY =
  /^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|worktree)|alias\.|sequence\.editor|diff\.external|credential\.|gpg\.|include\.|includeif\.|uploadpack\.|receive\.|http\..*proxy|url\.|remote\..*\.(uploadpack|receivepack)|man\.viewer|help\.|web\.browser|instaweb\.|protocol\.(.+\.)?allow|imap\.tunnel|lfs\.(extension|customtransfer|standalonetransferagent)|.*\.(command|cmd|helper|program|driver|textconv|clean|smudge|process|tool|path))/i

/** Settings whose value is a shell command git runs: classify that command too. */
const GIT_COMMAND_KEY =
  /^(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy|alternaterefscommand)|sequence\.editor|diff\.external|pager\.[^.]+|gpg\.program|gpg\.ssh\.defaultkeycommand|uploadpack\.packobjectshook|interactive\.difffilter|imap\.tunnel|remote\..+\.(uploadpack|receivepack)|.*\.(textconv|clean|smudge|process|cmd|command|helper))$/i

export const gitCommandSetting = (a: Analyzer, call: Call, key: string, value: string | undefined): void => {
  if (value === undefined) return
  const alias = /^alias\./i.test(key) && value.startsWith("!")
  if (!alias && !GIT_COMMAND_KEY.test(key)) return
  if (!alias && /^(true|false|yes|no|on|off|[01])$/i.test(value)) return
  a.nested(alias || value.startsWith("!") ? value.slice(1) : value, call, { delegate: false })
}

export const gitConfig = (a: Analyzer, call: Call, rest: ReadonlyArray<Arg>): void => {
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
