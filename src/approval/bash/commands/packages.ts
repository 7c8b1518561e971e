/**
 * Package managers and build tools (npm and its kin, pip, uv, cargo, go, gem, bundle, poetry,
 * conda, the system's package managers, make): their subcommands either read, install from the
 * network or run project code.
 */
import type { Analyzer, Arg, Call, Handler } from "../types.ts"
import { literal, onlyVersionOrHelp, parse, words } from "../args.ts"

const NPM_ALIASES: Record<string, string> = {
  i: "install",
  in: "install",
  ins: "install",
  inst: "install",
  insta: "install",
  instal: "install",
  isnt: "install",
  isnta: "install",
  isntal: "install",
  isntall: "install",
  add: "install",
  a: "install",
  ci: "ci",
  ic: "ci",
  "clean-install": "ci",
  "install-clean": "ci",
  "install-ci-test": "ci",
  cit: "ci",
  un: "uninstall",
  uninstall: "uninstall",
  remove: "uninstall",
  rm: "uninstall",
  r: "uninstall",
  up: "update",
  update: "update",
  upgrade: "update",
  udpate: "update",
  t: "test",
  tst: "test",
  test: "test",
  "run-script": "run",
  run: "run",
  rum: "run",
  urn: "run",
  rr: "run",
  x: "exec",
  exec: "exec",
  ls: "ls",
  list: "ls",
  ll: "ls",
  la: "ls"
}

const NPM_NETWORK = new Set(words(`
  install ci uninstall update dedupe ddp prune link ln unlink publish unpublish deprecate dist-tag owner access token login logout
  adduser team org profile star unstar hook whoami view info show v search s se find outdated audit ping doctor create dlx import
  fetch upgrade-interactive up install-test it patch-commit
`))

const NPM_READ = new Set(["ls", "help", "help-search", "root", "prefix", "bin", "explain", "why", "query", "fund", "sbom", "licenses", "completion", "-v", "--version", "-h", "--help", "store", "get", "list"])
const NPM_EXEC = new Set(["test", "start", "stop", "restart", "run", "exec", "explore", "rebuild", "rb", "pack", "version", "set-script", "init", "edit", "repo", "docs", "bugs", "home"])

export const packageManager: Handler = (a, call) => {
  const tool = call.base
  const parsed = parse(call.args, {
    short: tool === "pnpm" ? "CF" : "",
    long: ["prefix", "workspace", "loglevel", "registry", "cache", "userconfig", "globalconfig", "filter", "dir", "cwd", "config"],
    stopAtOperand: true
  })
  const global = parsed.has("-g", "--global") || parsed.opts.some((opt) => opt.name === "--location" && opt.value?.value === "global")
  const [subArg, ...rest] = parsed.operands
  const dir = parsed.value("-C", "--dir", "--cwd", "--prefix")
  a.inDir(dir, () => {
    if (dir !== undefined) a.workdir("read")
  })
  if (subArg === undefined) {
    if (onlyVersionOrHelp(call.args) || parsed.has("-v", "--version", "-h", "--help")) return
    if (tool === "yarn" || tool === "pnpm" || tool === "bun") {
      a.network("installs packages from the network")
      a.setKey(call, `${call.name} install`)
      return
    }
    return
  }
  const raw = subArg.value
  if (raw === undefined) {
    a.raise("high", "execute", `runs a ${tool} command only known at run time`)
    a.setKey(call, undefined)
    return
  }
  const sub = NPM_ALIASES[raw] ?? raw
  const script = rest.find((arg) => arg.value !== undefined && !arg.value.startsWith("-"))
  const withScript = sub === "run" || sub === "exec" || sub === "dlx" || sub === "workspace" || sub === "create"
  a.setKey(call, withScript && script?.value !== undefined ? `${call.name} ${raw} ${script.value}` : `${call.name} ${raw}`)
  if (global && sub !== "ls") a.raise("high", "write", "changes globally installed packages")
  if (sub === "config" || sub === "c" || sub === "pkg" || sub === "cache" || sub === "set" || sub === "get") {
    const action = rest[0]?.value
    if (action === undefined || ["get", "list", "ls", "verify", "path", "dir"].includes(action) || sub === "get") return
    if (sub === "pkg") {
      a.write(literal("package.json"))
      return
    }
    a.raise("high", "write", `changes ${tool} configuration or cache outside the workspace`)
    return
  }
  if (sub === "audit") {
    if (rest.some((arg) => arg.value === "fix")) a.network("installs packages from the network")
    else a.network("queries the package registry")
    return
  }
  if (sub === "init" && rest.some((arg) => arg.value !== undefined && !arg.value.startsWith("-"))) {
    a.network("downloads and runs an initializer package")
    return
  }
  if (NPM_NETWORK.has(sub)) {
    a.network(["install", "ci", "update", "dedupe", "ddp", "import", "fetch", "upgrade-interactive", "install-test", "it"].includes(sub) ? "installs packages from the network" : "uses the package registry")
    return
  }
  if (NPM_READ.has(sub)) return
  if (sub === "version" && rest.length === 0) return
  if (tool === "bun" && sub === "x") {
    a.network("may download and run a package")
    return
  }
  if (tool === "bun" && !NPM_EXEC.has(sub) && !["build", "dev", "repl", "upgrade", "pm", "outdated"].includes(sub)) {
    // `bun file.ts` runs a file; `bun <script>` a package script.
    if (/\.[cm]?[jt]sx?$/.test(raw)) a.runFile(subArg)
    a.raise("medium", "execute")
    return
  }
  if (tool === "bun" && (sub === "upgrade" || sub === "pm" || sub === "outdated")) {
    a.network("uses the package registry")
    return
  }
  if (sub === "exec" && (tool === "npm" || tool === "pnpm")) {
    if (parsed.has("-y", "--yes") || rest.some((arg) => arg.value === "--yes" || arg.value === "-y" || arg.value?.startsWith("--package") === true)) {
      a.network("may download and run a package")
      return
    }
  }
  // Scripts (`npm test`, `npm run build`, `yarn lint`, `pnpm dev`) run project code.
  a.raise("medium", "execute")
}

export const npx: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "pc", long: ["package", "call", "node-options", "shell"], stopAtOperand: true })
  const code = parsed.value("-c", "--call")
  const [command] = parsed.operands
  a.setKey(call, command?.value === undefined ? call.name : `${call.name} ${command.value}`)
  if (parsed.has("-y", "--yes", "-p", "--package")) a.network("may download and run a package")
  if (code !== undefined) {
    if (code.value === undefined) a.raise("high", "execute", "runs shell code only known at run time")
    else a.nested(code.value, call)
    return
  }
  a.raise("medium", "execute", "runs a package binary (may download it)")
}

const PIP_READ = new Set(["list", "show", "freeze", "check", "help", "debug", "inspect", "-V", "--version", "-h", "--help", "hash"])

export const pipCommand = (a: Analyzer, call: Call, args: ReadonlyArray<Arg>, name: string): void => {
  const parsed = parse(args, { short: "rcet", long: ["requirement", "constraint", "editable", "target", "index-url", "extra-index-url", "log", "cache-dir", "python"], stopAtOperand: true })
  const [subArg, ...rest] = parsed.operands
  const sub = subArg?.value
  a.setKey(call, sub === undefined ? name : `${name} ${sub}`)
  if (sub === undefined) return
  if (PIP_READ.has(sub)) return
  if (sub === "config" || sub === "cache") {
    if (["list", "get", "dir", "info", "debug"].includes(rest[0]?.value ?? "")) return
    a.raise("high", "write", "changes pip configuration or cache outside the workspace")
    return
  }
  if (sub === "uninstall") {
    a.raise("medium", "write", "uninstalls packages")
    return
  }
  for (const file of parse(rest, { short: "rc", long: ["requirement", "constraint"] }).values("-r", "--requirement", "-c", "--constraint")) a.read(file)
  a.network(sub === "install" || sub === "download" || sub === "wheel" ? "installs packages from the network" : "uses the package index")
}

export const pip: Handler = (a, call) => pipCommand(a, call, call.args, call.name)

export const uv: Handler = (a, call) => {
  const parsed = parse(call.args, { long: ["directory", "project", "python", "cache-dir", "config-file"], stopAtOperand: true })
  const [subArg, ...rest] = parsed.operands
  const sub = subArg?.value
  if (sub === "pip") return pipCommand(a, call, rest, `${call.name} pip`)
  a.setKey(call, sub === undefined ? call.name : `${call.name} ${sub}`)
  if (sub === undefined || ["version", "help", "tree", "--version"].includes(sub)) return
  if (sub === "run") {
    a.raise("medium", "execute", "runs project code (may install dependencies)")
    return
  }
  if (sub === "venv" || sub === "init") {
    a.write(rest.find((arg) => !arg.value?.startsWith("-")) ?? literal(sub === "venv" ? ".venv" : "."))
    return
  }
  a.network("installs packages from the network")
}

export const uvx: Handler = (a, call) => {
  const first = call.args.find((arg) => !arg.value?.startsWith("-"))
  a.setKey(call, first?.value === undefined ? call.name : `${call.name} ${first.value}`)
  a.network("downloads and runs a package")
}

/** Tools whose subcommands are read-only, networked, or run project code. */
interface ToolTable {
  readonly read: ReadonlySet<string>
  readonly network: ReadonlySet<string>
  readonly write?: ReadonlySet<string>
  /** Global options that take a value (skipped to find the subcommand). */
  readonly valueOptions?: ReadonlyArray<string>
}

const toolWithSubcommands =
  (table: ToolTable): Handler =>
  (a, call) => {
    let i = 0
    const args = call.args
    while (i < args.length) {
      const v = args[i]?.value
      if (v === undefined || !v.startsWith("-")) break
      i += table.valueOptions?.includes(v) === true ? 2 : 1
    }
    const subArg = args[i]
    if (subArg === undefined) {
      if (onlyVersionOrHelp(args)) return
      a.raise("medium", "execute")
      return
    }
    const sub = subArg.value
    if (sub === undefined) {
      a.raise("high", "execute", `runs a ${call.base} command only known at run time`)
      a.setKey(call, undefined)
      return
    }
    a.setKey(call, `${call.name} ${sub}`)
    if (table.read.has(sub)) return
    if (table.network.has(sub)) {
      a.network(call.base === "cargo" || call.base === "go" || call.base === "gem" || call.base === "bundle" ? "installs packages from the network" : "uses the network")
      return
    }
    if (table.write?.has(sub) === true) {
      a.raise("medium", "write", "writes files")
      return
    }
    a.raise("medium", "execute")
  }

export const cargo = toolWithSubcommands({
  read: new Set(["tree", "metadata", "version", "help", "locate-project", "pkgid", "verify-project", "read-manifest", "--version", "-V"]),
  network: new Set(["install", "fetch", "update", "publish", "search", "login", "logout", "yank", "owner", "add", "remove", "uninstall", "vendor", "generate-lockfile"]),
  write: new Set(["fmt", "clean", "new", "init"]),
  valueOptions: ["--manifest-path", "-Z", "--config", "-C", "--color"]
})

export const goTool: Handler = (a, call) => {
  const [subArg, second] = call.args
  const sub = subArg?.value
  if (sub === "mod") {
    const action = second?.value
    a.setKey(call, `${call.name} mod${action === undefined ? "" : ` ${action}`}`)
    if (action === "graph" || action === "why" || action === "help") return
    if (action === "edit" || action === "init") {
      a.write(literal("go.mod"))
      return
    }
    a.network("downloads modules from the network")
    return
  }
  if (sub === "env" && call.args.some((arg) => arg.value === "-w" || arg.value === "-u")) {
    a.setKey(call, `${call.name} env`)
    a.raise("high", "write", "changes Go settings outside the workspace")
    return
  }
  goSubcommands(a, call)
}

const goSubcommands = toolWithSubcommands({
  read: new Set(["version", "env", "list", "doc", "help"]),
  network: new Set(["get", "install", "work"]),
  write: new Set(["fmt"])
})

export const gem = toolWithSubcommands({
  read: new Set(["list", "info", "contents", "dependency", "environment", "help", "which", "specification", "--version"]),
  network: new Set(["install", "update", "uninstall", "push", "fetch", "search", "sources", "owner", "yank", "signin"]),
  write: new Set(["build", "cleanup"])
})

export const bundle = toolWithSubcommands({
  read: new Set(["list", "info", "show", "check", "version", "help", "config", "platform"]),
  network: new Set(["install", "update", "add", "remove", "outdated", "lock", "cache", "package"])
})

export const poetry = toolWithSubcommands({
  read: new Set(["show", "check", "version", "about", "help", "list", "env"]),
  network: new Set(["install", "add", "remove", "update", "lock", "publish", "search", "self", "source"]),
  write: new Set(["new", "init", "build"])
})

export const conda = toolWithSubcommands({
  read: new Set(["list", "info", "search", "--version", "doctor"]),
  network: new Set(["install", "create", "update", "upgrade", "remove", "uninstall", "env", "clean"]),
  write: new Set(["activate", "deactivate"])
})

const SYSTEM_PACKAGE_READ = new Set(words(`
  list search show info policy depends rdepends madison help --version -v -V config doctor outdated leaves deps uses --prefix
  --cellar --cache desc options log query provides whatprovides repolist stats
`))

export const systemPackages: Handler = (a, call) => {
  const first = call.args.find((arg) => arg.value !== undefined && !arg.value.startsWith("-"))
  a.setKey(call, first?.value === undefined ? call.name : `${call.name} ${first.value}`)
  if (call.base === "pacman") {
    const operation = call.args.find((arg) => /^-[A-Z]/.test(arg.value ?? ""))?.value ?? ""
    if (operation.startsWith("-Q") || operation.startsWith("-F") || (operation.startsWith("-S") && /[siglp]/.test(operation.slice(2)) && !/[uy]/.test(operation.slice(2)))) return
    a.network("installs or removes system packages")
    return
  }
  if (call.base === "apt-cache" || call.base === "dpkg-query" || call.base === "rpm" || call.base === "dpkg") {
    if (call.base === "dpkg" && call.args.some((arg) => /^(-i|--install|-r|--remove|-P|--purge|--configure|-x|--extract)$/.test(arg.value ?? ""))) {
      a.raise("high", "execute", "installs or removes system packages")
    } else if (call.base === "rpm" && call.args.some((arg) => /^-[^q-]*[iUFe]|^--(install|upgrade|freshen|erase)/.test(arg.value ?? ""))) {
      a.raise("high", "execute", "installs or removes system packages")
    }
    return
  }
  if (first?.value !== undefined && SYSTEM_PACKAGE_READ.has(first.value)) return
  if (first === undefined && onlyVersionOrHelp(call.args)) return
  a.network("installs or removes system packages")
}

export const make: Handler = (a, call) => {
  const parsed = parse(call.args, {
    short: "CfIoWEl",
    long: ["directory", "file", "makefile", "include-dir", "old-file", "assume-old", "what-if", "new-file", "assume-new", "eval"]
  })
  for (const file of parsed.values("-f", "--file", "--makefile")) a.read(file)
  const target = parsed.operands.find((arg) => arg.value !== undefined && !arg.value.includes("=") && !/^[0-9]+$/.test(arg.value))
  a.setKey(call, target?.value === undefined ? call.name : `${call.name} ${target.value}`)
  const directory = parsed.value("-C", "--directory")
  if (directory !== undefined) a.inDir(directory, () => a.workdir("write"))
  if (onlyVersionOrHelp(call.args)) return
  a.raise("medium", "execute")
}

