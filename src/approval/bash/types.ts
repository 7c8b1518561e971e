/**
 * The shapes shared by the shell command analyzer (analyze.ts), its command tables (commands/) and
 * the classifier (classify.ts).
 */
import type { ArithVerdict } from "../../shell/arith.ts"
import type { Authority, Risk } from "../classification.ts"
import type { Access } from "../path-fence.ts"

/** One argument after expansion. */
export interface Arg {
  /** Its text after quote removal, tilde, `$HOME`/`$PWD` and brace expansion; undefined when only known at run time. */
  readonly value: string | undefined
  /** How to show it. */
  readonly raw: string
  /** It contains unquoted glob characters. */
  readonly glob: boolean
  /** A substitution inside it downloads something from the network. */
  readonly net: boolean
  /** Supplied at run time by the command itself (xargs input, find's `{}`, a `read` variable). */
  readonly runtime: boolean
  /** The values it may take (a loop variable), when its value is not known. */
  readonly candidates?: ReadonlyArray<Candidate>
}

/** A value a loop variable may take. */
export interface Candidate {
  readonly value: string
  readonly glob: boolean
}

/**
 * What a variable is known to hold: one of several values (`X=build`, `for f in a b`), run-time
 * input (`read f`, `for f in $(…)`), or something downloaded (`X=$(curl …)`).
 */
export type Binding = ReadonlyArray<Candidate> | "input" | "download"

/**
 * What a path is used for: `delete` removes it, `force-delete` removes it recursively or forcibly,
 * `recursive-perm` changes owner or mode of a whole tree. All three are writes.
 */
export type PathRole = "plain" | "delete" | "force-delete" | "recursive-perm"

export interface PathRef {
  /** Lexical absolute path (for a glob, the directory before its first wildcard); undefined when unknown. */
  readonly abs: string | undefined
  readonly glob: boolean
  /** The first wildcard segment of a glob (`*.log`), matched against the names inside `abs`. */
  readonly pattern: string | undefined
  /** That segment matches everything (`*`, `.*`): the whole directory is meant. */
  readonly sweeping: boolean
  readonly access: Access
  readonly role: PathRole
  readonly display: string
}

/**
 * A glob in a place where the command reads options (`rg foo *`): bash expands it before the
 * command runs, so a file named `--pre=sh` becomes an option. bash/option-globs.ts lists `dir` when
 * the line is classified and asks when a match is not harmless there.
 */
export interface OptionGlob {
  /** The directory its first segment is matched in; undefined when only known at run time. */
  readonly dir: string | undefined
  /** Its first segment (`*`, `*.ts`). */
  readonly pattern: string
  /** More segments follow (`*.d/x`): a match is the start of a longer word. */
  readonly deeper: boolean
  /** The glob as written. */
  readonly display: string
  /** The command that reads it. */
  readonly program: string
  /** Whether this matched name (it starts with `-` or `+`) is harmless where the glob stands. */
  readonly harmless: (name: string) => boolean
}

export interface Reason {
  readonly risk: Risk
  readonly text: string
}

/** The grant prefix of one simple command and the paths it named (indexes into `paths`). */
export interface PrefixEntry {
  readonly key: string | undefined
  readonly authority: Authority
  readonly pathFrom: number
  readonly pathTo: number
  /** A read-only stage fed by a pipe that names no file (`| tail -20`, `| grep x`). */
  readonly filter: boolean
}

/** Where a command's standard input comes from, as far as the command line says. */
export interface Io {
  /** Its input comes (through a pipe or a redirection) from something downloaded. */
  readonly stdinNet: boolean
  /** Static text fed to it (a here-document, here-string or `echo` piped in). */
  readonly stdinText: string | undefined
  /** Its input is a pipe or a redirection rather than the terminal. */
  readonly stdinFed: boolean
  /** Its input is the output of another command of the pipeline. */
  readonly stdinPiped: boolean
  readonly inPipeline: boolean
  readonly background: boolean
}

/** One invocation handed to a command handler. */
export interface Call {
  /** The command name as written (after expansion). */
  readonly name: string
  /** The name the tables know it by. */
  readonly base: string
  readonly args: ReadonlyArray<Arg>
  readonly keyPrefix: string
  readonly io: Io
}


/** The rule of one command (commands/*.ts): what the call does, told to the analyzer. */
export type Handler = (analyzer: Analyzer, call: Call) => void

/**
 * What a command handler (commands/*.ts) may tell the analyzer about the call it judges: the risk
 * and authority it adds, the paths it reads and writes, the commands it runs in turn. Handlers see
 * only this, never the walker (analyze.ts), so the tables and the walker can change apart.
 */
export interface Analyzer {
  /** The home directory `~` expands to; undefined once the line changed HOME. */
  readonly home: string | undefined
  /** The authority of the simple command being analyzed so far. */
  readonly frameAuthority: Authority
  raise(risk: Risk, authority: Authority, reason?: string): void
  /** A network use: high risk, execute authority. */
  network(reason?: string): void
  forbid(reason: string, authority?: Authority): void
  /** A command that changes the system itself: high, and outside the workspace whatever it names. */
  system(reason: string): void
  /** The grant key of the call ("git status"); undefined when it has none. */
  setKey(call: Call, key: string | undefined): void
  /** Records a path the command reads or writes; false when it is not a file (e.g. /dev/null). */
  path(arg: Arg, access: Access, role?: PathRole): boolean
  read(arg: Arg | undefined): void
  /** A write (raises authority to write); role says what kind. */
  write(arg: Arg | undefined, role?: PathRole, reason?: string): void
  /** The working directory itself, e.g. where `tar x` extracts. */
  workdir(access: Access, reason?: string): void
  /** Runs `body` with the working directory changed to `dir` (`git -C`, `make -C`, `tar -C`…). */
  inDir(dir: Arg | undefined, body: () => void): void
  /** Runs `body` in a directory only known at run time (`find -execdir`, `git submodule foreach`). */
  inRuntimeDir(body: () => void): void
  /** `cd DIR`: later commands in the same shell run there. */
  changeDirectory(dir: Arg | undefined): void
  /** A file written by a download (`curl -o FILE`): running it later on the line is refused. */
  markDownloaded(arg: Arg): void
  /** A file run as a program or script: read it, and refuse it when it was just downloaded. */
  runFile(arg: Arg): void
  /** Runs a command given as words (wrappers: sudo, env, xargs, find -exec…). */
  invoke(args: ReadonlyArray<Arg>, keyPrefix: string, io: Io): void
  /**
   * Parses and analyzes a command string run by a shell (`bash -c`, `eval`, `watch`, `trap`…) in
   * the current working directory. Returns false when it cannot be parsed (already classified high).
   */
  nested(text: string, call: Call, options?: { readonly io?: Io; readonly delegate?: boolean; readonly positional?: ReadonlyArray<Arg> }): boolean
  /** An arithmetic context: refused when it cannot be read; the names it evaluates are checked at the end. */
  arithmetic(verdict: ArithVerdict): void
  /** A variable whose value was set on the line to something that is not a known number. */
  taint(name: string): void
  /** The single known value of a variable, if any. */
  knownValue(name: string): string | undefined
  /** A variable set for the shell or exported to programs: off the allowlist, the call executes. */
  variableWrite(name: string, value: string | undefined, exported: boolean): void
  /** Checks `NAME=VALUE` words given to export, declare, env…; `bind` when the shell keeps the value. */
  assignmentWord(arg: Arg, bind?: boolean, exported?: boolean): void
  /** `X=…`, `read X`, `for X in …`: what the variable holds from now on (undefined: unknown). */
  bind(name: string, binding: Binding | undefined): void
  /** A git command judged read-only runs in the current directory: its repository's config is checked later. */
  gitRead(): void
  /**
   * `arg` stands where `program` reads options: when it is a glob (or a loop variable holding one)
   * whose matches may start with `-` or `+`, its directory is listed later and a match that
   * `harmless` rejects makes the call ask.
   */
  optionGlob(arg: Arg, program: string, harmless: (name: string) => boolean): void
}
