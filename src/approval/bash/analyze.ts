/**
 * Walks a parsed command line and collects what it would do: the highest risk and authority of
 * every command in it (substitutions, subshells and nested `bash -c` strings included), the paths it
 * names, resolved lexically against the working directory each command would run in, and one grant
 * prefix per simple command. Pure and synchronous; bash/classify.ts resolves the paths through
 * the fence and draws the conclusions that need real paths.
 */
import * as path from "node:path"
import type { Authority, Risk } from "../classification.ts"
import { maxAuthority, maxRisk } from "../classification.ts"
import { dispatch } from "./commands/dispatch.ts"
import { parseShell, ShellSyntaxError, type Command, type Redirect, type Script, type SimpleCommand, type Word } from "../../shell/parse.ts"
import { judgeArithmetic, scanWord, subscriptOf, judgeSubscript, type ArithVerdict } from "../../shell/arith.ts"
import { exportAllowed, shellAssignmentAllowed } from "./environment.ts"
import type { Access } from "../path-fence.ts"
import type { Analyzer, Arg, Binding, Call, Candidate, Io, OptionGlob, PathRef, PathRole, PrefixEntry, Reason } from "./types.ts"

export type Analysis =
  | {
      readonly kind: "parsed"
      readonly risk: Risk
      readonly authority: Authority
      readonly reasons: ReadonlyArray<Reason>
      readonly paths: ReadonlyArray<PathRef>
      readonly prefixes: ReadonlyArray<PrefixEntry>
      /** A command changes the system beyond any path it names (crontab, mount, useradd…). */
      readonly outside: boolean
      /** Working directories of git commands judged read-only (undefined: not known); their repository config decides. */
      readonly gitReads: ReadonlyArray<string | undefined>
      /** Globs where a command reads options; their directories are listed by bash/option-globs.ts. */
      readonly optionGlobs: ReadonlyArray<OptionGlob>
    }
  | { readonly kind: "unparseable"; readonly message: string }

export interface AnalyzeOptions {
  /** Real path of the workspace: where the command starts. */
  readonly workspace: string
  /** The home directory `~` and `$HOME` expand to. */
  readonly home: string
  /** The environment the command will run with (which variables are exported); defaults to this process's. */
  readonly environment?: Readonly<Record<string, string | undefined>>
}

export const analyzeCommandLine = (command: string, options: AnalyzeOptions): Analysis => {
  let script: Script
  try {
    script = parseShell(command)
  } catch (error) {
    if (error instanceof ShellSyntaxError || error instanceof RangeError) return { kind: "unparseable", message: error.message }
    throw error
  }
  const analyzer = new LineAnalyzer(options.workspace, options.home, options.environment ?? process.env)
  analyzer.runScript(script)
  analyzer.finish()
  return {
    kind: "parsed",
    risk: analyzer.risk,
    authority: analyzer.authority,
    reasons: analyzer.reasons,
    paths: analyzer.paths,
    prefixes: analyzer.prefixes,
    outside: analyzer.outside,
    gitReads: analyzer.gitReads,
    optionGlobs: analyzer.optionGlobs
  }
}

const NO_IO: Io = { stdinNet: false, stdinText: undefined, stdinFed: false, stdinPiped: false, inPipeline: false, background: false }

interface State {
  /** The directories the next command may run in; null when unknown. */
  cwds: ReadonlyArray<string | null>
  /** What variables are known to hold (replaced, never mutated, so a saved state stays valid). */
  bindings: ReadonlyMap<string, Binding>
}

interface Frame {
  authority: Authority
  key: string | undefined | null
  delegated: boolean
}

const SPECIAL_FILES = new Set(["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"])
const isSpecialFile = (abs: string): boolean => SPECIAL_FILES.has(abs) || /^\/dev\/fd\/\d+$/.test(abs) || /^\/proc\/self\/fd\/\d+$/.test(abs)

const MAX_NESTED_STRINGS = 8
const MAX_BRACE_EXPANSIONS = 256

export class LineAnalyzer implements Analyzer {
  risk: Risk = "low"
  authority: Authority = "read"
  readonly reasons: Array<Reason> = []
  readonly paths: Array<PathRef> = []
  readonly prefixes: Array<PrefixEntry> = []
  /** Counts network uses, so a caller can tell whether a part of the tree touched the network. */
  networkEvents = 0
  /** Files written by a download earlier in the command line (lexical absolute paths). */
  private readonly downloaded = new Set<string>()
  private readonly functions = new Set<string>()
  private readonly defining = new Set<string>()
  private state: State
  private frame: Frame | undefined = undefined
  private nestedStrings = 0
  home: string | undefined
  readonly workspace: string
  readonly environment: Readonly<Record<string, string | undefined>>
  outside = false
  readonly gitReads: Array<string | undefined> = []
  readonly optionGlobs: Array<OptionGlob> = []
  /** Variables assigned on this line with a value that is not a known number. */
  private readonly tainted = new Set<string>()
  /** Variables whose values some arithmetic context evaluates. */
  private readonly arithNames = new Set<string>()
  /** Paths written (created, moved, linked) by commands earlier on the line: what is below them is unknown. */
  private readonly created: Array<string> = []
  private readonly pendingCreated: Array<string> = []
  /** CDPATH was set on the line: `cd NAME` may go anywhere. */
  private cdpath = false

  constructor(workspace: string, home: string, environment: Readonly<Record<string, string | undefined>> = process.env) {
    this.workspace = workspace
    this.home = home
    this.environment = environment
    this.state = { cwds: [workspace], bindings: new Map() }
  }

  /** A command that changes the system itself: high, and outside the workspace whatever it names. */
  system(reason: string): void {
    this.outside = true
    this.raise("high", "execute", reason)
  }

  /** An arithmetic context: refused when it cannot be read; the names it evaluates are checked at the end. */
  arithmetic(verdict: ArithVerdict): void {
    if (!verdict.safe) this.raise("medium", "execute", verdict.reason)
    else for (const name of verdict.names) this.arithNames.add(name)
  }

  taint(name: string): void {
    this.tainted.add(name)
  }

  /** The single known value of a variable, if any. */
  knownValue(name: string): string | undefined {
    const binding = this.state.bindings.get(name)
    return Array.isArray(binding) && binding.length === 1 ? binding[0]?.value : undefined
  }

  /**
   * A variable set for the shell (`x=1`, `read x`) or exported to programs (`X=1 cmd`, `export X`):
   * off the allowlist, the call executes (a pager, a library path, a config file…).
   */
  variableWrite(name: string, value: string | undefined, exported: boolean): void {
    if (name === "HOME") this.home = undefined
    if (name === "CDPATH") this.cdpath = true
    if (name === "IFS") return this.raise("high", "execute", "changes how the shell splits words")
    const allowed = exported ? exportAllowed(name, value) : shellAssignmentAllowed(name, value, this.environment)
    if (!allowed) this.raise("medium", "execute", exported ? `exports ${name} to the programs it runs` : `sets ${name}`)
  }

  /** Called once the whole line is analyzed. */
  finish(): void {
    for (const name of this.arithNames) {
      if (this.tainted.has(name)) this.raise("medium", "execute", `evaluates ${name} as arithmetic, and its value is set on the line`)
    }
  }

  /** Checks the expansions of a word that evaluate text (arithmetic, indirection, prompt expansion). */
  vetWord(word: Word): void {
    if (!/[$`]/.test(word.raw)) return
    const hazards = scanWord(word.raw)
    if (hazards.reason !== undefined) this.raise("medium", "execute", hazards.reason)
    for (const name of hazards.names) this.arithNames.add(name)
  }

  /** A git command judged read-only runs in the current directory: its repository's config is checked later. */
  gitRead(): void {
    for (const cwd of this.state.cwds) this.gitReads.push(cwd ?? undefined)
  }

  optionGlob(arg: Arg, program: string, harmless: (name: string) => boolean): void {
    // find's and fd's `{}`: the paths they pass start with the starting point (fd adds ./), never with -.
    if (arg.runtime && arg.value !== undefined) return
    const globs = arg.value !== undefined ? [{ value: arg.value, glob: arg.glob }] : (arg.candidates ?? [])
    for (const { value, glob } of globs) {
      // Only a glob that starts with a wildcard can match a name starting with - or +.
      if (!glob || !/^[*?[]/.test(value)) continue
      const slash = value.indexOf("/")
      const pattern = slash < 0 ? value : value.slice(0, slash)
      const display = arg.raw === value ? value : `${value} (through ${arg.raw})`
      for (const cwd of this.state.cwds) this.optionGlobs.push({ dir: cwd ?? undefined, pattern, deeper: slash >= 0, display, program, harmless })
    }
  }

  private flushCreated(): void {
    this.created.push(...this.pendingCreated.splice(0))
  }

  private underCreated(abs: string): boolean {
    return this.created.some((root) => abs === root || abs.startsWith(root.endsWith("/") ? root : `${root}/`))
  }

  // ------------------------------------------------------------ results

  raise(risk: Risk, authority: Authority, reason?: string): void {
    this.risk = maxRisk(this.risk, risk)
    this.authority = maxAuthority(this.authority, authority)
    if (this.frame !== undefined) this.frame.authority = maxAuthority(this.frame.authority, authority)
    if (reason !== undefined && !this.reasons.some((r) => r.risk === risk && r.text === reason)) this.reasons.push({ risk, text: reason })
  }

  /** A network use: high risk, execute authority. */
  network(reason = "uses the network"): void {
    this.networkEvents++
    this.raise("high", "execute", reason)
  }

  forbid(reason: string, authority: Authority = "execute"): void {
    this.raise("forbidden", authority, reason)
  }

  /** The authority of the simple command being analyzed so far. */
  get frameAuthority(): Authority {
    return this.frame?.authority ?? "read"
  }

  setKey(call: Call, key: string | undefined): void {
    if (this.frame !== undefined) this.frame.key = key === undefined ? undefined : call.keyPrefix + key
  }

  // ------------------------------------------------------------ paths

  /** The working directory of the current command, when there is exactly one known. */
  get cwd(): string | undefined {
    const [only, ...rest] = this.state.cwds
    return rest.length === 0 && only !== null ? only : undefined
  }

  /** Records a path the command reads or writes; false when it is not a file (e.g. /dev/null). */
  path(arg: Arg, access: Access, role: PathRole = "plain"): boolean {
    const value = arg.value
    if (value === undefined && arg.candidates !== undefined) {
      let counted = false
      for (const candidate of arg.candidates) {
        if (this.path({ value: candidate.value, raw: candidate.value, glob: candidate.glob, net: arg.net, runtime: false }, access, role)) counted = true
      }
      return counted
    }
    if (value === undefined) {
      if (arg.runtime && access === "read") return false
      this.paths.push({ abs: undefined, glob: arg.glob, pattern: undefined, sweeping: false, access, role, display: arg.raw })
      return true
    }
    if (value === "") return false
    let counted = false
    for (const cwd of this.state.cwds) {
      const lexical = path.isAbsolute(value) ? path.resolve(value) : cwd === null ? undefined : path.resolve(cwd, value)
      if (lexical !== undefined && isSpecialFile(lexical)) continue
      // Below a path written earlier on the line (a new symbolic link, a moved directory): not known now.
      const abs = lexical !== undefined && this.underCreated(lexical) ? undefined : lexical
      if (lexical !== undefined && access === "write") this.pendingCreated.push(lexical)
      if (abs !== undefined && /^\/dev\/(tcp|udp)\//.test(abs)) {
        this.network("opens a network connection")
        continue
      }
      const [base, pattern] = abs !== undefined && arg.glob ? globBase(abs) : [abs, undefined]
      const sweeping = pattern !== undefined && /^(\*+|\.\*|\*\.\*|\?\*|\*\?)$/.test(pattern)
      this.paths.push({ abs: base, glob: arg.glob, pattern, sweeping, access, role, display: arg.raw })
      counted = true
    }
    return counted
  }

  read(arg: Arg | undefined): void {
    if (arg === undefined) return
    this.path(arg, "read")
    // Reading a file downloaded earlier in the line passes the download on (`cat install.sh | sh`).
    if (arg.value !== undefined && this.isDownloaded(arg)) this.networkEvents++
  }

  /** A write (raises authority to write); role says what kind. */
  write(arg: Arg | undefined, role: PathRole = "plain", reason = role === "plain" ? "writes files" : "deletes files"): void {
    if (arg === undefined) return
    if (this.path(arg, "write", role)) this.raise("medium", "write", reason)
  }

  /** The working directory itself, e.g. where `tar x` extracts. */
  workdir(access: Access, reason = "writes files"): void {
    this.workdirPath(access)
    if (access === "write") this.raise("medium", "write", reason)
  }

  private workdirPath(access: Access): void {
    for (const cwd of this.state.cwds) {
      if (cwd !== null && access === "write") this.pendingCreated.push(cwd)
      this.paths.push({ abs: cwd === null || this.underCreated(cwd) ? undefined : cwd, glob: false, pattern: undefined, sweeping: false, access, role: "plain", display: cwd ?? "the working directory" })
    }
  }

  /** Runs `body` with the working directory changed to `dir` (`git -C`, `make -C`, `tar -C`…). */
  inDir(dir: Arg | undefined, body: () => void): void {
    if (dir === undefined) return body()
    const saved = this.state.cwds
    this.state.cwds = this.moved(dir)
    try {
      body()
    } finally {
      this.state.cwds = saved
    }
  }

  /** `cd DIR`: later commands in the same shell run there. */
  changeDirectory(dir: Arg | undefined): void {
    if (dir === undefined) {
      this.state.cwds = [this.home ?? null]
      return
    }
    if (dir.value === "-" || (this.cdpath && dir.value !== undefined && !/^(\/|\.\.?(\/|$))/.test(dir.value))) {
      this.state.cwds = [null]
      return
    }
    this.path(dir, "read")
    this.state.cwds = this.moved(dir)
  }

  /** Runs `body` in a directory only known at run time (`find -execdir`, `git submodule foreach`). */
  inRuntimeDir(body: () => void): void {
    const saved = this.state.cwds
    this.state.cwds = [null]
    try {
      body()
    } finally {
      this.state.cwds = saved
    }
  }

  /**
   * The directories `dir` leads to from each current one. A glob (`cd vendor/*`, `git -C x*`) or a
   * value only known at run time is a directory only known at run time (null), never a literal
   * path; a loop variable's known values (`for d in a b`) stay known.
   */
  private moved(dir: Arg): ReadonlyArray<string | null> {
    const values: ReadonlyArray<Candidate | undefined> = dir.value !== undefined ? [{ value: dir.value, glob: dir.glob }] : (dir.candidates ?? [undefined])
    return uniqueCwds(
      values.flatMap((candidate) =>
        this.state.cwds.map((cwd) => {
          if (candidate === undefined || candidate.glob) return null
          if (path.isAbsolute(candidate.value)) return path.resolve(candidate.value)
          return cwd === null ? null : path.resolve(cwd, candidate.value)
        })
      )
    )
  }

  /** Absolute lexical paths of an argument in every possible working directory. */
  absolutes(arg: Arg): ReadonlyArray<string | undefined> {
    const value = arg.value
    if (value === undefined) return [undefined]
    return this.state.cwds.map((cwd) => (path.isAbsolute(value) ? path.resolve(value) : cwd === null ? undefined : path.resolve(cwd, value)))
  }

  markDownloaded(arg: Arg): void {
    for (const abs of this.absolutes(arg)) if (abs !== undefined) this.downloaded.add(abs)
  }

  isDownloaded(arg: Arg): boolean {
    return this.absolutes(arg).some((abs) => abs !== undefined && this.downloaded.has(abs))
  }

  /** A file run as a program or script: read it, and refuse it when it was just downloaded. */
  runFile(arg: Arg): void {
    this.read(arg)
    if (arg.net || this.isDownloaded(arg)) this.forbid("runs code downloaded from the network")
  }

  // ------------------------------------------------------------ traversal

  runScript(script: Script): void {
    for (const item of script.items) {
      if (item.background) this.isolated(() => this.runAndOr(item.andOr.pipelines, true))
      else this.runAndOr(item.andOr.pipelines, false)
    }
  }

  private runAndOr(pipelines: ReadonlyArray<{ readonly commands: ReadonlyArray<Command> }>, background: boolean): void {
    const [first, ...rest] = pipelines
    if (first === undefined) return
    this.runPipeline(first.commands, background)
    if (rest.length === 0) return
    // Later pipelines may not run: afterwards, any of the outcomes is possible.
    const outcomes: Array<State> = [{ ...this.state }]
    for (const pipeline of rest) {
      this.runPipeline(pipeline.commands, background)
      outcomes.push({ ...this.state })
    }
    this.state = mergeStates(outcomes)
  }

  private ambient: Io = NO_IO

  private runPipeline(commands: ReadonlyArray<Command>, background: boolean): void {
    const [only, ...more] = commands
    if (only === undefined) return
    if (more.length === 0) {
      this.runCommand(only, { ...this.ambient, background: background || this.ambient.background })
      return
    }
    let upstreamNet = this.ambient.stdinNet
    let previous: Command | undefined = undefined
    commands.forEach((command, index) => {
      const mark = this.networkEvents
      const io: Io =
        index === 0
          ? { ...this.ambient, inPipeline: true, background: background || this.ambient.background }
          : { stdinNet: upstreamNet, stdinText: echoedText(previous), stdinFed: true, stdinPiped: true, inPipeline: true, background: background || this.ambient.background }
      this.isolated(() => this.runCommand(command, io))
      if (this.networkEvents > mark) upstreamNet = true
      previous = command
    })
  }

  private runCommand(command: Command, io: Io): void {
    if (command.kind === "simple") return this.runSimple(command, io)
    if (command.kind === "function") {
      this.functions.add(command.name)
      this.defining.add(command.name)
      this.isolated(() => this.withAmbient(NO_IO, () => this.runCommand(command.body, NO_IO)))
      this.defining.delete(command.name)
      this.framedRedirects(command.redirects)
      return
    }
    const nets = command.words.map((word) => this.substitutions(word))
    this.vetCompound(command.keyword, command.words)
    const { stdin, outputs } = this.framedRedirects(command.redirects)
    const inner: Io = mergeStdin(io, stdin)
    const networkBefore = this.networkEvents
    this.withAmbient(inner, () => {
      switch (command.keyword) {
        case "(":
          this.isolated(() => command.lists.forEach((list) => this.runScript(list)))
          return
        case "{":
          command.lists.forEach((list) => this.runScript(list))
          return
        case "[[":
        case "((":
          return
        default: {
          // Conditions and loop bodies may run or not: merge what they change with what was.
          const before: State = { ...this.state }
          if (command.variable !== undefined) this.bind(command.variable, this.loopValues(command.words, nets))
          command.lists.forEach((list) => this.runScript(list))
          this.state = mergeStates([before, { ...this.state }])
        }
      }
    })
    this.downloadedInto(outputs, networkBefore, io)
  }

  /** The words a compound command evaluates itself: `(( … ))`, `for (( … ))`, `[[ … ]]`, `for` lists, `case` subjects. */
  private vetCompound(keyword: string, words: ReadonlyArray<Word>): void {
    if (keyword === "((" || (keyword === "for" && words[0]?.raw.startsWith("(("))) {
      for (const word of words) {
        if (!word.raw.startsWith("((")) continue
        const body = word.raw.slice(2, word.raw.endsWith("))") ? -2 : undefined)
        for (const expression of body.split(";")) this.arithmetic(judgeArithmetic(expression))
      }
      return
    }
    for (const word of words) this.vetWord(word)
    if (keyword !== "[[") return
    // `[[ a -eq b ]]` evaluates both sides as arithmetic; `[[ -v name[sub] ]]` evaluates the subscript.
    words.forEach((word, index) => {
      const text = staticText(word)
      if (text !== undefined && ARITH_TESTS.has(text)) {
        for (const side of [words[index - 1], words[index + 1]]) if (side !== undefined) this.arithmeticOperand(side)
      }
      if (text === "-v") {
        const operand = words[index + 1]
        const name = operand === undefined ? undefined : staticText(operand)
        if (operand !== undefined && name === undefined) this.raise("medium", "execute", "tests a variable whose name is only known at run time")
        const subscript = name === undefined ? undefined : subscriptOf(name)
        if (subscript !== undefined) this.arithmetic(judgeSubscript(subscript))
      }
    })
  }

  /** One side of `[[ a -eq b ]]`: its text after expansion is evaluated as arithmetic. */
  private arithmeticOperand(word: Word): void {
    if (word.subs.length > 0) return this.raise("medium", "execute", "evaluates the output of a substitution as arithmetic")
    const names: Array<string> = []
    let text = ""
    for (const part of word.parts) {
      if (part.kind === "lit") text += part.text
      else if (part.kind === "param") {
        names.push(part.name)
        text += "0"
      } else return this.raise("medium", "execute", "evaluates an expansion as arithmetic")
    }
    this.arithmetic(judgeArithmetic(text))
    for (const name of names) if (/^[A-Za-z_]/.test(name)) this.arithNames.add(name)
  }

  private runSimple(command: SimpleCommand, io: Io): void {
    for (const assign of command.assigns) if (assign.value !== undefined) this.vetWord(assign.value)
    for (const word of command.words) this.vetWord(word)
    for (const redirect of command.redirects) this.vetWord(redirect.target)
    const args: Array<Arg> = []
    const assigned: Array<{ readonly name: string; readonly value: Arg | undefined }> = []
    for (const assign of command.assigns) {
      const net = assign.value === undefined ? false : this.substitutions(assign.value)
      assigned.push({ name: assign.name, value: assign.value === undefined ? undefined : this.expand(assign.value, net)[0] })
    }
    for (const word of command.words) {
      const net = this.substitutions(word)
      args.push(...this.expand(word, net))
    }
    // A downloaded value passed on (`echo "$X" | sh` after `X=$(curl …)`) counts as network use.
    if (args.some((arg) => arg.net)) this.networkEvents++
    const frame: Frame = { authority: "read", key: null, delegated: false }
    const outer = this.frame
    this.frame = frame
    const pathFrom = this.paths.length
    try {
      const { stdin, outputs } = this.redirects(command.redirects)
      for (const { name, value } of assigned) {
        this.variableWrite(name, value?.value, args.length > 0)
        if (value?.value === undefined || !/^-?[0-9]+$/.test(value.value)) this.taint(name)
      }
      if (args.length === 0) {
        for (const { name, value } of assigned) this.bind(name, bindingOf(value))
        if (command.redirects.length === 0) frame.delegated = true
        else frame.key = undefined
        return
      }
      const networkBefore = this.networkEvents
      this.invoke(args, "", mergeStdin(io, stdin))
      this.downloadedInto(outputs, networkBefore, io)
      if (this.state.cwds.some((cwd) => cwd !== this.workspace) && !["cd", "pushd", "popd"].includes(args[0]?.value ?? "")) {
        this.workdirPath(frame.authority === "read" ? "read" : "write")
      }
    } finally {
      this.frame = outer
      this.flushCreated()
      if (!frame.delegated) {
        const pathTo = this.paths.length
        const filter = io.stdinPiped && frame.authority === "read" && pathTo === pathFrom
        this.prefixes.push({ key: frame.key ?? undefined, authority: frame.authority, pathFrom, pathTo, filter })
      }
    }
  }

  /** Redirections of a compound command or function: their own grant entry when they touch files. */
  private framedRedirects(redirects: ReadonlyArray<Redirect>): Redirected {
    if (redirects.length === 0) return { stdin: {}, outputs: [] }
    const frame: Frame = { authority: "read", key: undefined, delegated: false }
    const outer = this.frame
    const pathFrom = this.paths.length
    this.frame = frame
    try {
      for (const redirect of redirects) this.vetWord(redirect.target)
      return this.redirects(redirects)
    } finally {
      this.frame = outer
      this.flushCreated()
      if (this.paths.length > pathFrom) this.prefixes.push({ key: undefined, authority: frame.authority, pathFrom, pathTo: this.paths.length, filter: false })
    }
  }

  /** Analyzes the commands inside a word; true when one of them uses the network. */
  private substitutions(word: Word): boolean {
    if (word.subs.length === 0) return false
    const mark = this.networkEvents
    for (const sub of word.subs) this.isolated(() => this.withAmbient(NO_IO, () => this.runScript(sub.script)))
    return this.networkEvents > mark
  }

  /** Redirections: the files they read and write, where standard input comes from, and standard output's files. */
  private redirects(redirects: ReadonlyArray<Redirect>): Redirected {
    const outputs: Array<Arg> = []
    let stdinNet = false
    let stdinText: string | undefined = undefined
    let stdinFed = false
    for (const redirect of redirects) {
      const targetNet = this.substitutions(redirect.target)
      const fd = redirect.fd
      const isStdin = fd === undefined || fd === 0
      if (redirect.heredoc !== undefined) {
        const mark = this.networkEvents
        for (const sub of redirect.heredoc.subs) this.isolated(() => this.withAmbient(NO_IO, () => this.runScript(sub.script)))
        if (isStdin) {
          stdinFed = true
          stdinText = redirect.heredoc.body
          stdinNet = stdinNet || this.networkEvents > mark
        }
        continue
      }
      const [target] = this.expand(redirect.target, targetNet)
      if (target === undefined) continue
      switch (redirect.op) {
        case "<<<":
          if (isStdin) {
            stdinFed = true
            stdinText = target.value === undefined ? undefined : target.value + "\n"
            stdinNet = stdinNet || targetNet
          }
          break
        case "<":
          this.read(target)
          if (isStdin) {
            stdinFed = true
            stdinText = undefined
            stdinNet = stdinNet || targetNet || this.isDownloaded(target)
          }
          break
        case "<&":
        case ">&":
          if (target.value !== undefined && /^([0-9]+-?|-)$/.test(target.value)) break
          if (redirect.op === "<&") this.read(target)
          else this.write(target)
          break
        case "<>":
          this.write(target)
          break
        default:
          this.write(target)
          if (fd === undefined || fd === 1) outputs.push(target)
      }
    }
    const stdin: { stdinNet?: boolean; stdinText?: string | undefined; stdinFed?: boolean } = {}
    if (stdinFed) {
      stdin.stdinFed = true
      stdin.stdinNet = stdinNet
      stdin.stdinText = stdinText
    }
    return { stdin, outputs }
  }

  /** Files a command wrote its downloaded output to (`curl x > install.sh`). */
  private downloadedInto(outputs: ReadonlyArray<Arg>, networkBefore: number, io: Io): void {
    if (this.networkEvents > networkBefore || io.stdinNet) for (const output of outputs) this.markDownloaded(output)
  }

  /** Checks `NAME=VALUE` words given to export, declare, env…; `bind` when the shell keeps the value. */
  assignmentWord(arg: Arg, bind = false, exported = true): void {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(\+?)=/.exec(arg.value ?? arg.raw)
    const name = match?.[1]
    if (name === undefined) return
    this.variableWrite(name, arg.value?.slice(match?.[0].length ?? 0), exported)
    if (!bind) return
    if (match?.[2] === "+" || arg.value === undefined) this.bind(name, undefined)
    else this.bind(name, [{ value: arg.value.slice(match?.[0].length ?? 0), glob: false }])
  }

  /** Runs a command given as words (wrappers: sudo, env, xargs, find -exec…). */
  invoke(args: ReadonlyArray<Arg>, keyPrefix: string, io: Io): void {
    const [head, ...rest] = args
    if (head === undefined) return
    const frame = this.frame
    if (head.value === undefined) {
      this.raise("high", "execute", "runs a command whose name is only known at run time")
      if (frame !== undefined) frame.key = undefined
      return
    }
    const name = head.value
    const call: Call = { name, base: name, args: rest, keyPrefix, io }
    this.setKey(call, name === "" ? undefined : name)
    if (this.functions.has(name)) {
      if (this.defining.has(name) && (io.inPipeline || io.background)) this.forbid("is a fork bomb")
      return
    }
    if (name.includes("/")) {
      const dir = path.posix.dirname(name)
      const base = path.posix.basename(name)
      if (SYSTEM_BIN_DIRS.has(dir)) {
        dispatch(this, { ...call, base })
        return
      }
      this.runFile(head)
      this.raise("medium", "execute")
      const handler = KNOWN_BASENAME.test(base) ? base : undefined
      if (handler !== undefined) dispatch(this, { ...call, base })
      this.setKey(call, name)
      return
    }
    dispatch(this, call)
  }

  /**
   * Parses and analyzes a command string run by a shell (`bash -c`, `eval`, `watch`, `trap`…) in
   * the current working directory. Returns false when it cannot be parsed (already classified high).
   */
  nested(text: string, call: Call, options: { readonly io?: Io; readonly delegate?: boolean; readonly positional?: ReadonlyArray<Arg> } = {}): boolean {
    const io = options.io ?? NO_IO
    if (this.nestedStrings >= MAX_NESTED_STRINGS) {
      this.raise("high", "execute", "runs deeply nested shell code")
      return false
    }
    let script: Script
    try {
      script = parseShell(text)
    } catch (error) {
      if (!(error instanceof ShellSyntaxError || error instanceof RangeError)) throw error
      this.raise("high", "execute", "runs shell code that cannot be parsed")
      return false
    }
    const frame = this.frame
    const wrapperAuthority = frame?.authority ?? "read"
    if (frame !== undefined && options.delegate !== false) frame.delegated = true
    this.nestedStrings++
    const prefixFrom = this.prefixes.length
    try {
      this.frame = undefined
      this.isolated(() => {
        // `sh -c 'CODE' NAME ARG…`: $0, $1… are the words after the code.
        options.positional?.forEach((arg, index) => this.bind(String(index), bindingOf(arg)))
        this.withAmbient(io, () => this.runScript(script))
      })
    } finally {
      this.frame = frame
      this.nestedStrings--
    }
    // The nested commands carry their own grant entries, under the wrapper's prefix and authority.
    for (let i = prefixFrom; i < this.prefixes.length; i++) {
      const entry = this.prefixes[i]
      if (entry === undefined) continue
      this.prefixes[i] = {
        ...entry,
        key: entry.key === undefined ? undefined : call.keyPrefix + entry.key,
        authority: maxAuthority(entry.authority, wrapperAuthority)
      }
    }
    return true
  }

  private isolated(body: () => void): void {
    const saved = this.state
    this.state = { cwds: saved.cwds, bindings: saved.bindings }
    try {
      body()
    } finally {
      this.state = saved
    }
  }

  private withAmbient(io: Io, body: () => void): void {
    const saved = this.ambient
    this.ambient = io
    try {
      body()
    } finally {
      this.ambient = saved
    }
  }

  // ------------------------------------------------------------ words

  private loopValues(words: ReadonlyArray<Word>, nets: ReadonlyArray<boolean>): Binding {
    const values: Array<Candidate> = []
    for (const [index, word] of words.entries()) {
      for (const arg of this.expand(word, nets[index] === true)) {
        if (arg.candidates !== undefined) values.push(...arg.candidates)
        else if (arg.net) return "download"
        else if (arg.value === undefined) return arg.runtime || isSubstitutionOnly(word) ? "input" : []
        else values.push({ value: arg.value, glob: arg.glob })
      }
    }
    return values.slice(0, MAX_ALTERNATIVES)
  }

  expand(word: Word, net: boolean): ReadonlyArray<Arg> {
    const bindings = this.state.bindings
    return expandWord(word, { home: this.home, pwd: this.cwd, binding: (name) => bindings.get(name) }, net)
  }

  /** `X=…`, `read X`, `for X in …`: what the variable holds from now on (undefined: unknown). */
  bind(name: string, binding: Binding | undefined): void {
    if (!Array.isArray(binding) || !binding.every((candidate) => /^-?[0-9]+$/.test(candidate.value))) this.tainted.add(name)
    const next = new Map(this.state.bindings)
    if (binding === undefined) next.delete(name)
    else next.set(name, binding)
    this.state.bindings = next
  }
}

/** What an assigned value tells about the variable. */
const bindingOf = (value: Arg | undefined): Binding | undefined => {
  if (value === undefined) return [{ value: "", glob: false }]
  if (value.net) return "download"
  if (value.candidates !== undefined) return value.candidates
  if (value.value !== undefined) return [{ value: value.value, glob: value.glob }]
  return value.runtime ? "input" : undefined
}

/** The possible outcomes of parts that may or may not run, as one state. */
const mergeStates = (states: ReadonlyArray<State>): State => {
  const [first, ...rest] = states
  if (first === undefined) throw new Error("no state to merge")
  const cwds = uniqueCwds(states.flatMap((state) => state.cwds))
  if (rest.every((state) => state.bindings === first.bindings)) return { cwds, bindings: first.bindings }
  const names = new Set(states.flatMap((state) => [...state.bindings.keys()]))
  const bindings = new Map<string, Binding>()
  for (const name of names) {
    const values = states.map((state) => state.bindings.get(name))
    const [one, ...others] = values
    if (others.every((value) => value === one)) {
      if (one !== undefined) bindings.set(name, one)
      continue
    }
    // Known in every outcome: any of the values. Downloaded in one: downloaded. Otherwise unknown.
    if (values.includes("download")) {
      bindings.set(name, "download")
      continue
    }
    const known = values.filter((value): value is ReadonlyArray<Candidate> => Array.isArray(value))
    if (known.length < values.length) continue
    const merged = new Map<string, Candidate>()
    for (const list of known) for (const candidate of list) merged.set(candidate.value, candidate)
    bindings.set(name, [...merged.values()].slice(0, MAX_ALTERNATIVES))
  }
  return { cwds, bindings }
}

/** `$(…)` or backticks and nothing else: the values are some command's output. */
const isSubstitutionOnly = (word: Word): boolean =>
  word.subs.length > 0 && word.parts.every((part) => part.kind === "dynamic" || (part.kind === "lit" && part.text === ""))

const SYSTEM_BIN_DIRS = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", "/opt/homebrew/bin", "/opt/local/bin", "/snap/bin"])
/** Scripts whose name is a known command's are analyzed as that command too (the higher wins). */
const KNOWN_BASENAME = /^[a-z][a-z0-9._+-]*$/

interface Redirected {
  readonly stdin: Partial<Io>
  readonly outputs: ReadonlyArray<Arg>
}

const mergeStdin = (io: Io, stdin: Partial<Io>): Io =>
  stdin.stdinFed === true ? { ...io, stdinFed: true, stdinPiped: false, stdinNet: stdin.stdinNet ?? false, stdinText: stdin.stdinText } : io

const MAX_CWDS = 16

/** The distinct directories a command may run in; past the bound, the rest are one directory only known at run time. */
const uniqueCwds = (cwds: ReadonlyArray<string | null>): ReadonlyArray<string | null> => {
  const distinct = [...new Set(cwds)]
  return distinct.length <= MAX_CWDS ? distinct : [...distinct.slice(0, MAX_CWDS - 1).filter((cwd) => cwd !== null), null]
}

/** The directory before the first wildcard segment, and that segment. */
const globBase = (abs: string): readonly [string, string | undefined] => {
  const segments = abs.split("/")
  const index = segments.findIndex((segment) => /[*?[]/.test(segment))
  if (index === -1) return [abs, undefined]
  const base = segments.slice(0, index).join("/")
  return [base === "" ? "/" : base, segments[index]]
}

/** The text an `echo` with static arguments writes, for `echo CODE | sh`. */
const echoedText = (command: Command | undefined): string | undefined => {
  if (command === undefined || command.kind !== "simple" || command.redirects.length > 0) return undefined
  const words = command.words.map((word) => staticText(word))
  if (words.some((word) => word === undefined) || words[0] !== "echo") return undefined
  const args = words.slice(1) as Array<string>
  while (args[0] !== undefined && /^-[neE]+$/.test(args[0])) args.shift()
  return args.join(" ") + "\n"
}

const ARITH_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"])

const staticText = (word: Word): string | undefined =>
  word.parts.every((part) => part.kind === "lit") ? word.parts.map((part) => (part.kind === "lit" ? part.text : "")).join("") : undefined

interface Char {
  readonly c: string
  readonly q: boolean
  /** An unquoted `$IFS`: the shell splits the word there. */
  readonly split?: true
}

const quotedChars = (text: string): Array<Char> => [...text].map((c) => ({ c, q: true }))

export interface ExpandContext {
  readonly home: string | undefined
  readonly pwd: string | undefined
  readonly binding: (name: string) => Binding | undefined
}

const MAX_ALTERNATIVES = 64

/**
 * Expands one word into arguments: tilde, `$HOME`, `$PWD`, loop variables and braces. Anything
 * else dynamic makes the value unknown; a word that depends on a loop variable becomes one
 * argument with candidate values.
 */
export const expandWord = (word: Word, context: ExpandContext, net: boolean): ReadonlyArray<Arg> => {
  const [single, ...others] = word.parts
  if (others.length === 0 && single?.kind === "lit" && (single.quoted || !/[~{]/.test(single.text))) {
    // Fast path: one literal needing neither tilde nor brace expansion.
    return [{ value: single.text, raw: word.raw, glob: !single.quoted && /[*?[]/.test(single.text), net, runtime: false }]
  }
  let alternatives: Array<Array<Char>> = [[]]
  let downloaded = false
  let dynamic = false
  let onlyInput = true
  let bound = false
  const append = (chars: ReadonlyArray<Char>): void => {
    for (const alternative of alternatives) alternative.push(...chars)
  }
  for (const part of word.parts) {
    if (part.kind === "lit") {
      append([...part.text].map((c) => ({ c, q: part.quoted })))
      continue
    }
    if (part.kind === "param") {
      if (part.name === "HOME" && context.home !== undefined) {
        append(quotedChars(context.home))
        continue
      }
      if (part.name === "PWD" && context.pwd !== undefined) {
        append(quotedChars(context.pwd))
        continue
      }
      const binding = context.binding(part.name)
      if (part.name === "IFS" && binding === undefined && !part.quoted) {
        append([{ c: " ", q: true, split: true }])
        continue
      }
      if (binding === "input") {
        dynamic = true
        continue
      }
      if (binding === "download") {
        downloaded = true
        dynamic = true
        onlyInput = false
        continue
      }
      if (binding !== undefined && binding.length > 0) {
        bound = true
        const next: Array<Array<Char>> = []
        for (const alternative of alternatives) {
          for (const candidate of binding) {
            if (next.length >= MAX_ALTERNATIVES) break
            // A glob candidate stands for the pattern's matches; an unquoted expansion is matched at run time too.
            const active = candidate.glob || !part.quoted
            next.push([...alternative, ...[...candidate.value].map((c) => ({ c, q: !(active && (c === "*" || c === "?" || c === "[")) }))])
          }
        }
        alternatives = next
        continue
      }
    }
    dynamic = true
    onlyInput = false
  }
  const hasGlob = (list: ReadonlyArray<Char>): boolean => list.some((ch) => !ch.q && (ch.c === "*" || ch.c === "?" || ch.c === "["))
  const expanded: Array<ReadonlyArray<Char>> = []
  for (const alternative of alternatives) {
    const withTilde = expandTilde(alternative, context)
    if (withTilde === undefined) {
      dynamic = true
      onlyInput = false
      break
    }
    expanded.push(...braceExpand(withTilde, 0))
  }
  const [only] = word.parts
  if (word.parts.length === 1 && only?.kind === "dynamic" && word.subs.length === 1 && word.subs[0]?.kind !== "command") {
    // Process substitution: the command gets a pipe's name, not a file.
    return [{ value: "/dev/fd/63", raw: word.raw, glob: false, net, runtime: false }]
  }
  if (dynamic) return [{ value: undefined, raw: word.raw, glob: alternatives.some(hasGlob), net: net || downloaded, runtime: onlyInput }]
  const pieces = expanded.flatMap(splitAtIfs)
  const args = pieces.map((list) => {
    const value = list.map((ch) => ch.c).join("")
    return { value, raw: pieces.length === 1 ? word.raw : value, glob: hasGlob(list), net, runtime: false }
  })
  if (!bound || alternatives.length === 1) return args
  return [{ value: undefined, raw: word.raw, glob: args.some((arg) => arg.glob), net, runtime: true, candidates: args.map((arg) => ({ value: arg.value, glob: arg.glob })) }]
}

/** `rm${IFS}-rf${IFS}/` is three words. */
const splitAtIfs = (chars: ReadonlyArray<Char>): Array<ReadonlyArray<Char>> => {
  if (!chars.some((ch) => ch.split === true)) return [chars]
  const pieces: Array<Array<Char>> = [[]]
  for (const ch of chars) {
    if (ch.split === true) pieces.push([])
    else pieces[pieces.length - 1]?.push(ch)
  }
  return pieces.filter((piece) => piece.length > 0)
}

/** Tilde expansion at the start of a word and after `NAME=`; undefined when it names another user. */
const expandTilde = (input: ReadonlyArray<Char>, context: ExpandContext): ReadonlyArray<Char> | undefined => {
  let chars = input
  const at = (index: number): boolean => {
    if (chars[index]?.c !== "~" || chars[index]?.q !== false) return true
    let end = index + 1
    while (end < chars.length && !(chars[end]?.c === "/" && chars[end]?.q === false)) end++
    const user = chars
      .slice(index + 1, end)
      .map((ch) => ch.c)
      .join("")
    const replacement = user === "" ? context.home : user === "+" ? context.pwd : undefined
    if (replacement === undefined) return false
    chars = [...chars.slice(0, index), ...quotedChars(replacement), ...chars.slice(end)]
    return true
  }
  if (!at(0)) return undefined
  const equals = chars.findIndex((ch) => ch.c === "=" && !ch.q)
  if (equals > 0 && chars[equals + 1]?.c === "~") {
    const name = chars
      .slice(0, equals)
      .map((ch) => (ch.q ? "\0" : ch.c))
      .join("")
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !at(equals + 1)) return undefined
  }
  return chars
}

const braceExpand = (chars: ReadonlyArray<Char>, from: number): Array<ReadonlyArray<Char>> => {
  for (let open = from; open < chars.length; open++) {
    const ch = chars[open]
    if (ch === undefined || ch.q || ch.c !== "{") continue
    if (open > 0 && chars[open - 1]?.c === "$" && chars[open - 1]?.q === false) continue
    let depth = 0
    let close = -1
    const commas: Array<number> = []
    for (let i = open + 1; i < chars.length; i++) {
      const inner = chars[i]
      if (inner === undefined || inner.q) continue
      if (inner.c === "{") depth++
      else if (inner.c === "}") {
        if (depth === 0) {
          close = i
          break
        }
        depth--
      } else if (inner.c === "," && depth === 0) commas.push(i)
    }
    if (close === -1) continue
    const prefix = chars.slice(0, open)
    const suffix = chars.slice(close + 1)
    let alternatives: Array<ReadonlyArray<Char>> | undefined = undefined
    if (commas.length > 0) {
      const bounds = [open, ...commas, close]
      alternatives = []
      for (let i = 0; i + 1 < bounds.length; i++) alternatives.push(chars.slice((bounds[i] ?? 0) + 1, bounds[i + 1]))
    } else {
      const inner = chars
        .slice(open + 1, close)
        .map((c) => c.c)
        .join("")
      alternatives = sequence(inner)?.map((text) => [...text].map((c) => ({ c, q: true })))
    }
    if (alternatives === undefined) continue
    const results: Array<ReadonlyArray<Char>> = []
    for (const alternative of alternatives) {
      for (const expanded of braceExpand([...prefix, ...alternative, ...suffix], 0)) {
        results.push(expanded)
        if (results.length >= MAX_BRACE_EXPANSIONS) return results
      }
    }
    return results
  }
  return [chars]
}

const sequence = (text: string): Array<string> | undefined => {
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text)
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(text)
  const match = numeric ?? letters
  if (match === null) return undefined
  const from = numeric !== null ? Number(match[1]) : (match[1] ?? "a").charCodeAt(0)
  const to = numeric !== null ? Number(match[2]) : (match[2] ?? "a").charCodeAt(0)
  const step = Math.max(1, Math.abs(Number(match[3] ?? "1")))
  const out: Array<string> = []
  const direction = to >= from ? 1 : -1
  for (let value = from; direction > 0 ? value <= to : value >= to; value += step * direction) {
    out.push(numeric !== null ? String(value) : String.fromCharCode(value))
    if (out.length >= MAX_BRACE_EXPANSIONS) break
  }
  return out
}

export { NO_IO }
