/**
 * One clear line for a bad command line of `crystal`, `crystal run` and `crystal space`, naming
 * the flag, the value and the choices. Runs when the fast path declines a command line and before
 * @effect/cli sees it: @effect/cli's own wording names neither flag nor value ("Expected one of the
 * following cases: plan, work"), blames the next word for an unknown flag, and takes `-x` or a
 * flag missing its value as the prompt. The problems are those of the one scanner both use (flags.ts).
 */
import { otherCommands, scanSessionCommandLine } from "./flags.ts"

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
