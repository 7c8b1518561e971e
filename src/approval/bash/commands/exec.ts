/**
 * Commands that run other code: shells (`bash -c` strings are parsed and classified), interpreters,
 * eval and source, wrappers (sudo, env, nice, timeout, xargs…), and system administration commands,
 * some of which are never allowed (shutdown, mkfs on a device, kill -1).
 */
import type { Analyzer, Arg, Call, Handler } from "../types.ts"
import { type Spec, literal, onlyVersionOrHelp, parse, readAll, withPlaceholders, writeAll } from "../args.ts"
import { pipCommand } from "./packages.ts"

/** Where a shell or interpreter reads code from its standard input. */
const codeFromStdin = (a: Analyzer, call: Call, kind: "shell" | "interpreter"): void => {
  const io = call.io
  if (io.stdinNet) {
    a.forbid(kind === "shell" ? "pipes downloaded code into a shell" : "pipes downloaded code into an interpreter")
    return
  }
  if (kind === "shell" && io.stdinText !== undefined) {
    a.nested(io.stdinText, call)
    return
  }
  if (io.stdinPiped) a.raise("high", "execute", "runs code from its input")
  else a.raise("medium", "execute")
}

interface InterpreterSpec {
  /** Options whose value is code to run. */
  readonly code: ReadonlyArray<string>
  /** Options that name a module to run. */
  readonly module?: ReadonlyArray<string>
  /** Options followed by a separate value that is not code. */
  readonly values?: ReadonlyArray<string>
  /** Options whose value is the script file. */
  readonly script?: ReadonlyArray<string>
  /**
   * Perl/Ruby style clusters (`-pi -e`, `-ne`): `code` letters take the code (rest of the cluster
   * or the next word), `attached` letters take the rest of the cluster, `i` edits files in place.
   */
  readonly clusters?: { readonly code: string; readonly attached: string }
}

export const PYTHON: InterpreterSpec = { code: ["-c"], module: ["-m"], values: ["-W", "-X", "-Q"] }
const NODE: InterpreterSpec = {
  code: ["-e", "--eval", "-p", "--print"],
  values: ["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--input-type", "--env-file", "--inspect-port", "--title"]
}
export const INTERPRETERS: Record<string, InterpreterSpec> = {
  node: NODE,
  nodejs: NODE,
  tsx: NODE,
  "ts-node": NODE,
  perl: { code: ["-e", "-E"], clusters: { code: "eE", attached: "0CdDIlmMx" } },
  ruby: { code: ["-e"], values: ["-r", "-I", "-C"], clusters: { code: "e", attached: "0CEFIKrTWx" } },
  php: { code: ["-r"], values: ["-c", "-d", "-z"], script: ["-f"] },
  lua: { code: ["-e"], values: ["-l"] },
  luajit: { code: ["-e"], values: ["-l"] },
  Rscript: { code: ["-e"] },
  julia: { code: ["-e", "--eval", "-E", "--print"] },
  osascript: { code: ["-e"] },
  pwsh: { code: ["-c", "-Command", "-command", "-CommandWithArgs", "-EncodedCommand", "-e", "-ec"], script: ["-File", "-f"] },
  powershell: { code: ["-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"], script: ["-File", "-f"] },
  java: { code: [], values: ["-cp", "-classpath", "--class-path", "-p", "--module-path"], script: ["-jar"] },
  groovy: { code: ["-e"] },
  scala: { code: ["-e"] },
  elixir: { code: ["-e", "--eval"] },
  tclsh: { code: [] }
}

export const interpreterHandler =
  (spec: InterpreterSpec): Handler =>
  (a, call) => {
    const args = call.args
    if (onlyVersionOrHelp(args)) return
    let code: Arg | undefined = undefined
    let module: Arg | undefined = undefined
    let script: Arg | undefined = undefined
    let inPlace = false
    let i = 0
    for (; i < args.length; i++) {
      const arg = args[i] as Arg
      const v = arg.value
      if (v === undefined) {
        script = arg
        break
      }
      if (v === "--") {
        script = args[i + 1]
        i++
        break
      }
      if (v === "-" || !v.startsWith("-")) {
        script = arg
        break
      }
      if (spec.code.includes(v)) {
        code = args[i + 1] ?? literal("")
        i++
        break
      }
      if (spec.module?.includes(v) === true) {
        module = args[i + 1]
        i++
        break
      }
      if (spec.script?.includes(v) === true) {
        script = args[i + 1]
        i++
        break
      }
      if (spec.values?.includes(v) === true) {
        i++
        continue
      }
      if (spec.module !== undefined && spec.module.some((option) => v.startsWith(option) && v.length > option.length && !v.startsWith("--"))) {
        module = literal(v.slice(2), arg)
        break
      }
      const clusters = spec.clusters
      if (clusters !== undefined && /^-[A-Za-z0-9]/.test(v)) {
        for (let j = 1; j < v.length; j++) {
          const letter = v[j] as string
          if (clusters.code.includes(letter)) {
            const rest = v.slice(j + 1)
            code = rest !== "" ? literal(rest, arg) : (args[++i] ?? literal(""))
            break
          }
          if (letter === "i") inPlace = true
          if (letter === "i" || clusters.attached.includes(letter)) break
        }
        if (code !== undefined) break
        continue
      }
      if (!v.startsWith("--") && spec.code.some((option) => option.length === 2 && v.startsWith(option) && v.length > 2)) {
        code = literal(v.slice(2), arg)
        break
      }
    }
    const operands = args.slice(i + 1)
    if (inPlace) {
      writeAll(
        a,
        operands.filter((arg) => !arg.value?.startsWith("-")),
        "plain",
        "edits files in place"
      )
    }
    if (module !== undefined) {
      moduleRun(a, call, module, operands)
      return
    }
    if (code !== undefined) {
      if (code.net) a.forbid("runs downloaded code")
      if (code.value === undefined) a.raise("high", "execute", "runs code only known at run time")
      a.raise("medium", "execute")
      a.setKey(call, undefined)
      return
    }
    if (script === undefined || script.value === "-" || script.value === "/dev/stdin") {
      codeFromStdin(a, call, "interpreter")
      if (script !== undefined) a.setKey(call, undefined)
      return
    }
    a.runFile(script)
    a.raise("medium", "execute")
    a.setKey(call, script.value === undefined ? undefined : `${call.name} ${script.value}`)
  }

const moduleRun = (a: Analyzer, call: Call, module: Arg, rest: ReadonlyArray<Arg>): void => {
  const name = module.value
  a.setKey(call, name === undefined ? undefined : `${call.name} -m ${name}`)
  if (name === undefined) {
    a.raise("high", "execute", "runs a module only known at run time")
    return
  }
  if (name === "pip") return pipCommand(a, call, rest, `${call.name} -m pip`)
  if (name === "json.tool") {
    readAll(a, rest.filter((arg) => !arg.value?.startsWith("-")).slice(0, 1))
    a.write(rest.filter((arg) => !arg.value?.startsWith("-"))[1])
    return
  }
  if (name === "venv" || name === "virtualenv") {
    writeAll(
      a,
      rest.filter((arg) => !arg.value?.startsWith("-"))
    )
    return
  }
  if (name === "http.server" || name === "SimpleHTTPServer") {
    a.raise("high", "execute", "serves files over the network")
    return
  }
  a.raise("medium", "execute")
}

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh", "rbash"])

export const shell: Handler = (a, call) => {
  const args = call.args
  if (onlyVersionOrHelp(args)) return
  let commandFlag = false
  let stdinFlag = false
  let code: Arg | undefined = undefined
  let codeAt = -1
  let script: Arg | undefined = undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Arg
    const v = arg.value
    if (v === undefined) {
      if (commandFlag) [code, codeAt] = [arg, i]
      else script = arg
      break
    }
    if (v === "--" || v === "-") {
      const next = args[i + 1]
      if (commandFlag) [code, codeAt] = [next, i + 1]
      else if (!stdinFlag) script = next
      break
    }
    if (["-o", "+o", "-O", "+O"].includes(v)) {
      i++
      continue
    }
    if (v === "--rcfile" || v === "--init-file") {
      a.runFile(args[i + 1] ?? literal(""))
      i++
      continue
    }
    if (v.startsWith("--")) {
      if (v === "--command") commandFlag = true
      continue
    }
    if ((v.startsWith("-") || v.startsWith("+")) && v.length > 1) {
      if (v.startsWith("-") && v.includes("c")) commandFlag = true
      if (v.startsWith("-") && v.includes("s")) stdinFlag = true
      continue
    }
    if (commandFlag) [code, codeAt] = [arg, i]
    else if (!stdinFlag) script = arg
    break
  }
  if (commandFlag) {
    if (code === undefined) return
    if (code.net) {
      a.forbid("runs downloaded code")
      return
    }
    if (code.value === undefined) {
      a.raise("high", "execute", "runs shell code only known at run time")
      a.setKey(call, undefined)
      return
    }
    a.nested(code.value, call, { positional: args.slice(codeAt + 1) })
    return
  }
  if (script !== undefined && script.value !== "/dev/stdin") {
    a.runFile(script)
    a.raise("medium", "execute")
    a.setKey(call, script.value === undefined ? undefined : `${call.name} ${script.value}`)
    return
  }
  codeFromStdin(a, call, "shell")
}

export const evalBuiltin: Handler = (a, call) => {
  a.raise("high", "execute", "evaluates a string as shell code")
  if (call.args.some((arg) => arg.net)) {
    a.forbid("runs downloaded code")
    return
  }
  if (call.args.some((arg) => arg.value === undefined)) {
    a.setKey(call, undefined)
    return
  }
  if (call.args.length > 0) a.nested(call.args.map((arg) => arg.value ?? "").join(" "), { ...call, keyPrefix: `${call.keyPrefix}eval ` })
}

export const source: Handler = (a, call) => {
  const [file] = call.args
  a.setKey(call, file?.value === undefined ? undefined : `${call.name} ${file.value}`)
  if (file === undefined) return
  if (file.value === "/dev/stdin" || file.value === "-") {
    codeFromStdin(a, call, "shell")
    return
  }
  a.runFile(file)
  a.raise("medium", "execute")
}

/** `trap 'commands' SIGNALS`: the commands run later, in this shell. */
export const trap: Handler = (a, call) => {
  const [first] = call.args
  if (first === undefined || ["-l", "-p", "-", "--", ""].includes(first.value ?? "x")) return
  if (first.value === undefined) a.raise("high", "execute", "sets a trap only known at run time")
  else a.nested(first.value, call)
}

export const alias: Handler = (a, call) => {
  for (const arg of call.args) {
    const value = arg.value
    if (value === undefined) {
      a.raise("medium", "execute", "defines an alias only known at run time")
      continue
    }
    const eq = value.indexOf("=")
    if (eq > 0) a.nested(value.slice(eq + 1), call)
  }
}

// ---------------------------------------------------------------- wrappers

/** Runs the operands as a command after skipping the wrapper's own options. */
export const wrapper =
  (spec: Spec, options: { readonly floor?: readonly ["medium" | "high", string]; readonly keep?: boolean } = {}): Handler =>
  (a, call) => {
    const parsed = parse(call.args, { ...spec, stopAtOperand: true })
    if (options.floor !== undefined) a.raise(options.floor[0], "execute", options.floor[1])
    if (parsed.operands.length === 0) return
    a.invoke(parsed.operands, options.keep === true ? `${call.keyPrefix}${call.name} ` : call.keyPrefix, call.io)
  }

export const sudo: Handler = (a, call) => {
  const parsed = parse(call.args, {
    short: "ugpCDrthTUR",
    long: ["user", "group", "prompt", "close-from", "chdir", "role", "type", "host", "command-timeout", "other-user", "chroot"],
    stopAtOperand: true
  })
  a.raise("high", "execute", "runs with elevated privileges")
  if (call.base === "sudoedit" || parsed.has("-e", "--edit")) {
    writeAll(a, parsed.operands)
    return
  }
  if (parsed.operands.length === 0) return
  a.inDir(parsed.value("-D", "--chdir"), () => a.invoke(parsed.operands, `${call.keyPrefix}${call.name} `, call.io))
}

export const su: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "csgGw", long: ["command", "shell", "group", "supp-group", "whitelist-environment", "session-command"] })
  a.raise("high", "execute", "runs as another user")
  const command = parsed.value("-c", "--command", "--session-command")
  if (command === undefined) return
  if (command.net) a.forbid("runs downloaded code")
  else if (command.value === undefined) a.setKey(call, undefined)
  else a.nested(command.value, { ...call, keyPrefix: `${call.keyPrefix}${call.name} ` })
}

export const env: Handler = (a, call) => {
  const args = call.args
  let chdir: Arg | undefined = undefined
  let i = 0
  for (; i < args.length; i++) {
    const arg = args[i] as Arg
    const v = arg.value
    if (v === undefined) break
    if (v === "--") {
      i++
      break
    }
    if (v === "-u" || v === "--unset") {
      i++
      continue
    }
    if (v === "-C" || v === "--chdir") {
      chdir = args[++i]
      continue
    }
    if (v.startsWith("--chdir=")) {
      chdir = literal(v.slice(8), arg)
      continue
    }
    if (v === "-S" || v === "--split-string" || v.startsWith("--split-string=") || (v.startsWith("-S") && v.length > 2)) {
      const text = v === "-S" || v === "--split-string" ? args[++i] : literal(v.startsWith("-S") ? v.slice(2) : v.slice(15), arg)
      const rest = args.slice(i + 1)
      if (text?.value === undefined || rest.some((r) => r.value === undefined)) {
        a.raise("high", "execute", "runs a command only known at run time")
        a.setKey(call, undefined)
        return
      }
      a.inDir(chdir, () => {
        a.nested([text.value as string, ...rest.map((r) => shellQuote(r.value as string))].join(" "), call, { io: call.io })
      })
      return
    }
    if (v.startsWith("-") && v !== "-") continue
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) {
      a.assignmentWord(arg)
      continue
    }
    break
  }
  const command = args.slice(i)
  if (command.length === 0) return
  a.inDir(chdir, () => a.invoke(command, call.keyPrefix, call.io))
}

const shellQuote = (text: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`)

export const nice: Handler = (a, call) => {
  const args = call.args
  let i = 0
  while (i < args.length) {
    const v = args[i]?.value
    if (v === undefined) break
    if (v === "-n" || v === "--adjustment") i += 2
    else if (/^-(-?[0-9]+|n[0-9-]+)$/.test(v) || v.startsWith("--adjustment=")) i++
    else if (v === "--") {
      i++
      break
    } else break
  }
  if (i < args.length) a.invoke(args.slice(i), call.keyPrefix, call.io)
}

export const timeCommand: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "fo", long: ["format", "output"], stopAtOperand: true })
  a.write(parsed.value("-o", "--output"))
  if (parsed.operands.length > 0) a.invoke(parsed.operands, call.keyPrefix, call.io)
}

export const timeout: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "sk", long: ["signal", "kill-after"], stopAtOperand: true })
  const [, ...command] = parsed.operands
  if (command.length > 0) a.invoke(command, call.keyPrefix, call.io)
}

export const commandBuiltin: Handler = (a, call) => {
  const parsed = parse(call.args, { stopAtOperand: true })
  if (parsed.has("-v", "-V")) return
  if (parsed.operands.length > 0) a.invoke(parsed.operands, call.keyPrefix, call.io)
}

export const xargs: Handler = (a, call) => {
  const args = call.args
  let replace: string | undefined = undefined
  let i = 0
  const withValue = new Set(["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s"])
  for (; i < args.length; i++) {
    const arg = args[i] as Arg
    const v = arg.value
    if (v === undefined || !v.startsWith("-") || v === "-") break
    if (v === "--") {
      i++
      break
    }
    if (v === "-I") {
      replace = args[++i]?.value ?? "{}"
      continue
    }
    if (v.startsWith("-I")) {
      replace = v.slice(2)
      continue
    }
    if (v === "-i" || v === "--replace") {
      replace = "{}"
      continue
    }
    if (v.startsWith("-i") || v.startsWith("--replace=")) {
      replace = v.startsWith("-i") ? v.slice(2) : v.slice(10)
      continue
    }
    if (v === "-a" || v === "--arg-file") {
      a.read(args[++i])
      continue
    }
    if (v.startsWith("--arg-file=")) {
      a.read(literal(v.slice(11), arg))
      continue
    }
    if (withValue.has(v)) i++
  }
  let command: ReadonlyArray<Arg> = args.slice(i)
  if (command.length === 0) command = [literal("echo")]
  const input: Arg = { value: undefined, raw: "its input", glob: false, net: call.io.stdinNet, runtime: true }
  const words = replace !== undefined ? withPlaceholders(command, undefined, replace) : [...command, input]
  a.invoke(words, `${call.keyPrefix}${call.name} `, { ...call.io, stdinFed: false, stdinPiped: false, stdinNet: false, stdinText: undefined })
}

export const watch: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "nq", long: ["interval", "equexit"], stopAtOperand: true })
  const command = parsed.operands
  if (command.length === 0) return
  if (parsed.has("-x", "--exec")) {
    a.invoke(command, call.keyPrefix, call.io)
    return
  }
  if (command.some((arg) => arg.value === undefined)) {
    a.raise("high", "execute", "runs a command only known at run time")
    return
  }
  a.nested(command.map((arg) => arg.value as string).join(" "), call)
}

export const flock: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "wEc", long: ["timeout", "wait", "conflict-exit-code", "command"], stopAtOperand: true })
  const [lock, ...command] = parsed.operands
  if (lock !== undefined && !/^[0-9]+$/.test(lock.value ?? "")) a.write(lock)
  const code = parsed.value("-c", "--command")
  if (code !== undefined) {
    if (code.value === undefined) a.raise("high", "execute", "runs a command only known at run time")
    else a.nested(code.value, call)
    return
  }
  if (command.length > 0) a.invoke(command, call.keyPrefix, call.io)
}

export const tracer: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "oeEpPsSuIaX", stopAtOperand: true })
  a.write(parsed.value("-o"))
  a.raise("medium", "execute")
  if (parsed.operands.length > 0) a.invoke(parsed.operands, call.keyPrefix, call.io)
}

export const scriptCommand: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "cEIOBTm", long: ["command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format"] })
  const code = parsed.value("-c", "--command")
  a.write(parsed.operands[0] ?? literal("typescript"))
  if (code?.value !== undefined) a.nested(code.value, call)
  else a.raise("medium", "execute")
}

// ---------------------------------------------------------------- system

export const forbidden =
  (reason: string): Handler =>
  (a) =>
    a.forbid(reason)

export const high =
  (reason: string, authority: "write" | "execute" = "execute"): Handler =>
  (a) =>
    a.raise("high", authority, reason)

/** A command that changes the machine rather than files: high, and outside whatever its arguments say. */
export const system =
  (reason: string): Handler =>
  (a) =>
    a.system(reason)

export const shutdown: Handler = (a, call) => {
  if (call.base === "shutdown" && call.args.some((arg) => arg.value === "-c")) {
    a.system("cancels a shutdown")
    return
  }
  a.forbid("shuts down or restarts the machine")
}

export const systemctl: Handler = (a, call) => {
  const action = call.args.find((arg) => arg.value !== undefined && !arg.value.startsWith("-"))?.value
  a.setKey(call, action === undefined ? call.name : `${call.name} ${action}`)
  if (action === undefined || ["status", "show", "cat", "list-units", "list-unit-files", "list-timers", "list-sockets", "list-dependencies", "list-jobs", "list-machines", "is-active", "is-enabled", "is-failed", "is-system-running", "help", "get-default", "show-environment"].includes(action)) {
    return
  }
  if (["poweroff", "reboot", "halt", "kexec", "soft-reboot", "emergency", "rescue"].includes(action)) {
    a.forbid("shuts down or restarts the machine")
    return
  }
  a.system("changes system services")
}

export const initCommand: Handler = (a, call) => {
  const level = call.args[0]?.value
  if (level === "0" || level === "6") a.forbid("shuts down or restarts the machine")
  else a.raise("high", "execute", "changes the system run level")
}

export const kill: Handler = (a, call) => {
  const args = call.args
  if (args.some((arg) => arg.value === "-l" || arg.value === "-L" || arg.value === "--list")) return
  const pids: Array<string | undefined> = []
  let signalSeen = false
  for (let i = 0; i < args.length; i++) {
    const v = args[i]?.value
    if (v === "--") {
      pids.push(...args.slice(i + 1).map((arg) => arg.value))
      break
    }
    if (v === "-s" || v === "-n" || v === "--signal") {
      i++
      signalSeen = true
      continue
    }
    if (v !== undefined && v.startsWith("-") && !signalSeen && pids.length === 0) {
      signalSeen = true
      continue
    }
    pids.push(v)
  }
  if (pids.includes("-1")) a.forbid("signals every process")
  else a.raise("high", "execute", "signals processes")
}

export const crontab: Handler = (a, call) => {
  if (call.args.some((arg) => arg.value === "-l")) return
  a.system(call.args.some((arg) => arg.value === "-r") ? "removes scheduled jobs" : "installs scheduled jobs")
}

/** mkfs, fdisk, wipefs, parted…: always high; on a device, forbidden. */
export const disk: Handler = (a, call) => {
  if (call.args.some((arg) => arg.value === "-l" || arg.value === "--list") && !call.base.startsWith("mkfs")) {
    a.raise("high", "read", "reads disk partition tables")
    return
  }
  if (call.args.some((arg) => arg.value === undefined || arg.value.startsWith("/dev/"))) {
    a.forbid("formats or repartitions a disk")
    return
  }
  a.raise("high", "write", "formats or repartitions a disk image")
  writeAll(
    a,
    call.args.filter((arg) => !arg.value?.startsWith("-"))
  )
}

export const hostname: Handler = (a, call) => {
  if (call.args.some((arg) => arg.value !== undefined && !arg.value.startsWith("-"))) a.system("changes the host name")
  else if (call.args.some((arg) => ["-F", "--file", "-b", "--boot"].includes(arg.value ?? ""))) a.system("changes the host name")
}

export const date: Handler = (a, call) => {
  if (call.args.some((arg) => arg.value === "-s" || arg.value?.startsWith("--set") === true || /^[0-9]{8,}/.test(arg.value ?? ""))) {
    a.system("sets the system clock")
  }
}

export const settingCtl: Handler = (a, call) => {
  const action = call.args.find((arg) => arg.value !== undefined && !arg.value.startsWith("-"))?.value
  if (action !== undefined && /^(set-|set$|hostname$)/.test(action)) a.system("changes system settings")
}

export const sysctl: Handler = (a, call) => {
  if (call.args.some((arg) => arg.value === "-w" || arg.value === "-p" || arg.value === "--system" || arg.value?.includes("=") === true)) {
    a.system("changes kernel settings")
  }
}

export const ipCommand: Handler = (a, call) => {
  if (call.args.some((arg) => ["add", "del", "delete", "change", "replace", "set", "flush", "append", "prepend", "up", "down", "exec"].includes(arg.value ?? ""))) {
    a.system("changes network settings")
  }
}

export const mount: Handler = (a, call) => {
  if (call.base === "mount" && call.args.every((arg) => arg.value?.startsWith("-") === true && ["-l", "-v", "--list"].includes(arg.value))) return
  a.system("mounts or unmounts file systems")
}

export const service: Handler = (a, call) => {
  const action = call.args[1]?.value
  if (action === "status" || call.args.some((arg) => arg.value === "--status-all")) return
  a.system("changes system services")
}

export const cd: Handler = (a, call) => {
  const parsed = parse(call.args)
  a.changeDirectory(parsed.operands[0])
}

export const pushd: Handler = (a, call) => {
  const target = parse(call.args).operands[0]
  if (target === undefined || /^[+-][0-9]+$/.test(target.value ?? "")) a.changeDirectory(literal("-"))
  else a.changeDirectory(target)
}

export const popd: Handler = (a) => a.changeDirectory(literal("-"))

export const open: Handler = (a, call) => {
  a.raise("medium", "execute", "opens files or URLs with other programs")
  const parsed = parse(call.args, { short: "abe" })
  for (const operand of parsed.operands) if (!/^[a-z]+:/.test(operand.value ?? "")) a.read(operand)
}

export const busybox: Handler = (a, call) => {
  if (call.args.length === 0) return
  a.invoke(call.args, call.keyPrefix, call.io)
}

export const deno: Handler = (a, call) => {
  const [subArg, ...rest] = call.args
  const sub = subArg?.value
  a.setKey(call, sub === undefined ? call.name : `${call.name} ${sub}`)
  if (sub === undefined) return void a.raise("medium", "execute")
  if (["--version", "-V", "help", "--help", "info", "doc", "types", "lint", "check"].includes(sub)) return
  if (sub === "fmt") {
    if (!rest.some((arg) => arg.value === "--check")) a.raise("medium", "write", "formats files")
    return
  }
  if (["install", "add", "remove", "upgrade", "outdated", "publish", "cache", "uninstall"].includes(sub)) return void a.network("uses the network")
  if (sub === "eval") return void a.raise("medium", "execute")
  const script = rest.find((arg) => !arg.value?.startsWith("-"))
  if (script?.value !== undefined && /^https?:/.test(script.value)) return void a.network("downloads and runs remote code")
  a.raise("medium", "execute")
}

export const parallel = high("runs commands built at run time")
