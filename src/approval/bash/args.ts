/**
 * Argument parsing shared by the command tables: options and operands the way GNU tools read them
 * (clusters, attached values, `--opt=value`, `--`), plus small helpers for recording paths.
 */
import type { Analyzer, Arg, PathRole, Io } from "./types.ts"

/** A list of names written as one whitespace-separated string. */
export const words = (text: string): ReadonlyArray<string> => {
  let list = wordLists.get(text)
  if (list === undefined) {
    list = text.trim().split(/\s+/)
    wordLists.set(text, list)
  }
  return list
}
const wordLists = new Map<string, ReadonlyArray<string>>()

interface Opt {
  readonly name: string
  readonly value: Arg | undefined
}

export interface Spec {
  /** Short option letters that take a value. */
  readonly short?: string
  /** Long option names (without dashes) that take a value. */
  readonly long?: ReadonlyArray<string>
  /** Options end at the first operand (POSIX order); the rest are operands. */
  readonly stopAtOperand?: boolean
}

export class Parsed {
  readonly opts: ReadonlyArray<Opt>
  readonly operands: ReadonlyArray<Arg>

  constructor(opts: ReadonlyArray<Opt>, operands: ReadonlyArray<Arg>) {
    this.opts = opts
    this.operands = operands
  }

  has(...names: ReadonlyArray<string>): boolean {
    return this.opts.some((opt) => names.includes(opt.name))
  }

  value(...names: ReadonlyArray<string>): Arg | undefined {
    let found: Arg | undefined = undefined
    for (const opt of this.opts) if (names.includes(opt.name) && opt.value !== undefined) found = opt.value
    return found
  }

  values(...names: ReadonlyArray<string>): ReadonlyArray<Arg> {
    return this.opts.filter((opt) => names.includes(opt.name) && opt.value !== undefined).map((opt) => opt.value as Arg)
  }
}

export const literal = (text: string, from?: Arg): Arg => ({
  value: text,
  raw: text,
  glob: from?.glob ?? false,
  net: from?.net ?? false,
  runtime: from?.runtime ?? false
})

export const parse = (args: ReadonlyArray<Arg>, spec: Spec = {}): Parsed => {
  const opts: Array<Opt> = []
  const operands: Array<Arg> = []
  const short = spec.short ?? ""
  const long = spec.long ?? []
  let done = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Arg
    const v = arg.value
    if (done || v === undefined || v === "-" || !v.startsWith("-")) {
      operands.push(arg)
      if (spec.stopAtOperand === true) done = true
      continue
    }
    if (v === "--") {
      done = true
      continue
    }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=")
      if (eq >= 0) opts.push({ name: v.slice(0, eq), value: literal(v.slice(eq + 1), arg) })
      else if (long.includes(v.slice(2))) opts.push({ name: v, value: args[++i] })
      else opts.push({ name: v, value: undefined })
      continue
    }
    for (let j = 1; j < v.length; j++) {
      const letter = v[j] as string
      if (short.includes(letter)) {
        const rest = v.slice(j + 1)
        opts.push({ name: `-${letter}`, value: rest !== "" ? literal(rest, arg) : args[++i] })
        break
      }
      opts.push({ name: `-${letter}`, value: undefined })
    }
  }
  return new Parsed(opts, operands)
}

// ---------------------------------------------------------------- helpers

export const readAll = (a: Analyzer, args: ReadonlyArray<Arg>): void => {
  for (const arg of args) if (arg.value !== "-") a.read(arg)
}

export const writeAll = (a: Analyzer, args: ReadonlyArray<Arg>, role: PathRole = "plain", reason?: string): void => {
  for (const arg of args) if (arg.value !== "-") a.write(arg, role, reason)
}

/** An operand that names a file or directory rather than a word, a URL or a host. */
export const looksLikePath = (value: string): boolean =>
  /^(\/|~(\/|$)|\.{1,2}(\/|$))/.test(value) || (value.includes("/") && !value.includes("://") && !/^[^/]*[@:=]/.test(value))

/** `tool --version`, `tool -h`: prints and exits. (Not `tool version`: for make or an interpreter that runs something.) */
export const onlyVersionOrHelp = (args: ReadonlyArray<Arg>): boolean =>
  args.length > 0 && args.every((arg) => ["--version", "-v", "-V", "--help", "-h", "-version", "-VV"].includes(arg.value ?? ""))

/**
 * An argument whose text is only known at run time (xargs input, `$(…)`, a `read` variable) and
 * may start with `-`: a loop variable whose literal values do not is not.
 */
export const mayBeOptionAtRunTime = (arg: Arg): boolean =>
  arg.value === undefined && (arg.candidates === undefined || arg.candidates.some((each) => each.value.startsWith("-")))

/** A command run by another (find -exec, fd -x) does not read the outer command's input. */
export const NO_STDIN = (io: Io): Io => ({ ...io, stdinNet: false, stdinText: undefined, stdinFed: false, stdinPiped: false })

/** Replaces `{}` (find -exec, fd -x, xargs -I) by a run-time path under `root`. */
export const withPlaceholders = (command: ReadonlyArray<Arg>, root: Arg | undefined, placeholder: RegExp | string): ReadonlyArray<Arg> =>
  command.map((arg) => {
    const value = arg.value
    if (value === undefined) return arg
    const matches = typeof placeholder === "string" ? value.includes(placeholder) : placeholder.test(value)
    if (!matches) return arg
    const whole = typeof placeholder === "string" ? value === placeholder : new RegExp(`^(?:${placeholder.source})$`).test(value)
    if (whole && root?.value !== undefined) {
      const base = root.value.replace(/\/+$/, "")
      const value = root.value.startsWith("/") && base === "" ? "/*" : base === "." || base === "" ? "*" : `${base}/*`
      return { value, raw: arg.raw, glob: true, net: arg.net || root.net, runtime: true }
    }
    return { value: undefined, raw: arg.raw, glob: false, net: arg.net, runtime: true }
  })
