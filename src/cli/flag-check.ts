/**
 * One clear line for a bad command line of `crystal`, `crystal run` and `crystal space`, naming
 * the flag, the value and the choices. Runs when the fast path declines a command line and before
 * @effect/cli sees it: @effect/cli's own wording names neither flag nor value ("Expected one of the
 * following cases: plan, work"), blames the next word for an unknown flag, and takes `-x` or a
 * flag missing its value as the prompt. The problems are those of the one scanner both use (flags.ts).
 */
import { otherCommands, scanSessionCommandLine, sessionFlagSpecs, type Invocation, type SessionFlags } from "./flags.ts"

export interface ArgsProblem {
  /** The one line to print, without a trailing newline. */
  readonly message: string
  /** `--format json` was asked for: the line goes out as a JSON error event. */
  readonly json: boolean
}

/** @effect/cli's own flags: help, version, completions and wizard are its business. */
const builtIn = new Set(["--help", "-h", "--version", "--wizard", "--completions", "--log-level"])

const wantsJson = (args: ReadonlyArray<string>): boolean =>
  args.some((arg, index) => arg === "--format=json" || (arg === "--format" && args[index + 1] === "json"))

/**
 * A problem with a command line of `crystal`, `crystal run` or `crystal space`; undefined when it
 * is fine or belongs to @effect/cli (help, version, completions, the other subcommands).
 */
export const checkSessionArgs = (argv: ReadonlyArray<string>): ArgsProblem | undefined => {
  const [first, ...rest] = argv
  if (first !== undefined && (otherCommands as ReadonlyArray<string>).includes(first)) return undefined
  const endOfFlags = argv.indexOf("--")
  const flagPart = endOfFlags < 0 ? argv : argv.slice(0, endOfFlags)
  if (flagPart.some((arg) => builtIn.has(arg.split("=")[0] ?? arg))) return undefined
  const scanned = scanSessionCommandLine(argv)
  return scanned._tag === "Invocation" ? undefined : { message: scanned.message, json: first === "run" && wantsJson(rest) }
}

/** `argv` without @effect/cli's `--log-level LEVEL` (or `--log-level=LEVEL`) before `--`. */
const withoutLogLevel = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const kept: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ""
    if (arg === "--") {
      kept.push(...argv.slice(i))
      break
    }
    if (arg === "--log-level") i++
    else if (!arg.startsWith("--log-level=")) kept.push(arg)
  }
  return kept
}

const positionalOf = (invocation: Invocation): string | undefined =>
  invocation._tag === "Run" ? invocation.prompt : invocation._tag === "Space" ? invocation.dir : undefined

/**
 * A session command line that reached @effect/cli (the fast path declines one carrying
 * `--log-level`) must mean what the session-flag scanner reads in it without that option:
 * @effect/cli reads no flag after a prompt that starts with a dash, so `crystal run --log-level
 * debug -5 --mode plan` ran in work mode. Any difference is this one-line problem rather than a
 * silently dropped flag. Lines built by `--wizard` are its own business.
 */
export const fullCliDisagreement = (argv: ReadonlyArray<string>, invocation: Invocation): ArgsProblem | undefined => {
  if (argv.includes("--wizard")) return undefined
  const json = invocation.flags.format === "json"
  const scanned = scanSessionCommandLine(withoutLogLevel(argv))
  if (scanned._tag === "Problem") return { message: scanned.message, json }
  const expected = scanned.invocation
  const command = invocation._tag === "Run" ? "crystal run" : invocation._tag === "Space" ? "crystal space" : "crystal"
  const differ: Array<string> = []
  if (expected._tag !== invocation._tag || positionalOf(expected) !== positionalOf(invocation)) differ.push(invocation._tag === "Space" ? "the directory" : "the prompt")
  for (const key of Object.keys(sessionFlagSpecs) as Array<keyof SessionFlags>) {
    if (JSON.stringify(expected.flags[key]) !== JSON.stringify(invocation.flags[key])) differ.push(`--${sessionFlagSpecs[key].name}`)
  }
  if (differ.length === 0) return undefined
  return {
    message: `${command}: ${differ.join(", ")} would not be read as given (with --log-level, the full parser reads no flag after a word that starts with a dash); put the flags first and such a prompt or directory after --`,
    json
  }
}
