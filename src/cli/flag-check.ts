/**
 * One clear line for a bad command line of `crystal`, `crystal run` and `crystal space`, naming
 * the flag, the value and the choices. Runs when the fast path declines a command line and before
 * @effect/cli sees it: @effect/cli's own wording names neither flag nor value ("Expected one of the
 * following cases: plan, work"), blames the next word for an unknown flag, and takes `-x` or a
 * flag missing its value as the prompt. Built from the same table as both parsers (flags.ts).
 */
import { sessionFlagSpecs, type FlagSpec } from "./flags.ts"

export interface ArgsProblem {
  /** The one line to print, without a trailing newline. */
  readonly message: string
  /** `--format json` was asked for: the line goes out as a JSON error event. */
  readonly json: boolean
}

const specs: ReadonlyMap<string, FlagSpec> = new Map(Object.values(sessionFlagSpecs).map((spec) => [`--${spec.name}`, spec]))

/** @effect/cli's own flags: help, version, completions and wizard are its business. */
const builtIn = new Set(["--help", "-h", "--version", "--wizard", "--completions", "--log-level"])

/** The subcommands @effect/cli handles itself (their arguments are not session flags). */
export const otherCommands = ["sessions", "promptsets", "prompt-attachments", "plugins", "tools", "mcp"] as const

const looksLikeFlag = (arg: string): boolean => /^--?[A-Za-z][\w-]*(=|$)/.test(arg)

const choicesText = (spec: FlagSpec): string => (spec.choices ?? []).join(", ")

const quoted = (value: string): string => JSON.stringify(value)

const wantsJson = (args: ReadonlyArray<string>): boolean =>
  args.some((arg, index) => arg === "--format=json" || (arg === "--format" && args[index + 1] === "json"))

const needsValue = (flag: string, spec: FlagSpec): string =>
  spec.kind === "choice" ? `${flag} needs a value: one of ${choicesText(spec)}` : `${flag} needs a value (${flag} ${spec.placeholder ?? "VALUE"})`

/** The first problem of a session command line's flags and positionals, or undefined. */
const firstProblem = (command: string, args: ReadonlyArray<string>, maxPositionals: number, positionalName: string): string | undefined => {
  const given = new Map<string, string>()
  const positionals: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (arg === "--") {
      positionals.push(...args.slice(i + 1))
      break
    }
    if (!looksLikeFlag(arg)) {
      positionals.push(arg)
      continue
    }
    const eq = arg.indexOf("=")
    const flag = eq > 0 ? arg.slice(0, eq) : arg
    const spec = specs.get(flag)
    if (spec === undefined) {
      const known = [...specs.keys()].join(", ")
      return `${command}: unknown flag ${flag} (its flags: ${known}; --help lists them)`
    }
    if (spec.kind === "switch") {
      if (eq > 0) return `${command}: ${flag} takes no value (got ${quoted(arg.slice(eq + 1))})`
      if (given.has(flag)) return `${command}: ${flag} is given twice`
      given.set(flag, "")
      continue
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[i + 1]
    if (value === undefined || (eq < 0 && looksLikeFlag(value))) return `${command}: ${needsValue(flag, spec)}`
    if (eq < 0) i++
    if (value === "") return `${command}: ${needsValue(flag, spec)}`
    if (spec.kind === "choice" && !(spec.choices ?? []).includes(value)) {
      return `${command}: ${flag} ${quoted(value)} is not one of ${choicesText(spec)}`
    }
    if (spec.kind !== "repeated") {
      const earlier = given.get(flag)
      if (earlier !== undefined) return `${command}: ${flag} is given twice (${quoted(earlier)} and ${quoted(value)})`
      given.set(flag, value)
    }
  }
  if (positionals.length > maxPositionals) {
    const extra = positionals[maxPositionals] ?? ""
    return maxPositionals === 0
      ? `${command}: unknown command ${quoted(extra)} (commands: run, space, ${otherCommands.join(", ")})`
      : `${command}: one ${positionalName} only, got ${positionals.length} (${positionals.map(quoted).join(", ")}); quote a prompt with spaces`
  }
  return undefined
}

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
  const message =
    first === "run"
      ? firstProblem("crystal run", rest, 1, "prompt")
      : first === "space"
        ? firstProblem("crystal space", rest, 1, "directory")
        : firstProblem("crystal", argv, 0, "")
  return message === undefined ? undefined : { message, json: first === "run" && wantsJson(rest) }
}
