/**
 * Start-up fast path: the common command lines (`crystal`, `crystal run ...`, `crystal space ...` with the session flags)
 * are parsed here without loading @effect/cli, which costs ~40 ms in the compiled binary. Anything
 * this parser is not sure about (help, unknown flags, bad values, other commands) returns undefined
 * and the full @effect/cli tree handles it, errors and help included.
 */
import { defaultSessionFlags, sessionFlagSpecs, type FlagSpec, type Invocation, type SessionFlags } from "./flags.ts"

type Key = keyof SessionFlags

const specsByName = new Map<string, readonly [Key, FlagSpec]>(
  (Object.entries(sessionFlagSpecs) as Array<[Key, FlagSpec]>).map(([key, spec]) => [`--${spec.name}`, [key, spec]] as const)
)

const parseFlags = (args: ReadonlyArray<string>): { flags: SessionFlags; positionals: Array<string> } | undefined => {
  const flags: { -readonly [K in Key]: SessionFlags[K] } = { ...defaultSessionFlags }
  // Values are checked against the table before they are stored, so this view is sound.
  const values = flags as Record<Key, unknown>
  const seen = new Set<Key>()
  const positionals: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg)
      continue
    }
    const eq = arg.indexOf("=")
    const name = eq > 0 ? arg.slice(0, eq) : arg
    const found = specsByName.get(name)
    if (found === undefined) return undefined
    const [key, spec] = found
    if (spec.kind === "switch") {
      if (eq > 0 || seen.has(key)) return undefined
      seen.add(key)
      values[key] = true
      continue
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i]
    if (value === undefined || (eq < 0 && value.startsWith("-"))) return undefined
    if (spec.kind === "repeated") {
      values[key] = [...(values[key] as ReadonlyArray<string>), value]
      continue
    }
    if (seen.has(key)) return undefined
    seen.add(key)
    if (spec.kind === "choice" && !(spec.choices ?? []).includes(value)) return undefined
    values[key] = value
  }
  return { flags, positionals }
}

export const parseFast = (argv: ReadonlyArray<string>): Invocation | undefined => {
  const [first, ...rest] = argv
  if (first === "run") {
    const parsed = parseFlags(rest)
    if (parsed === undefined || parsed.positionals.length > 1) return undefined
    return { _tag: "Run", prompt: parsed.positionals[0], flags: parsed.flags }
  }
  if (first === "space") {
    const parsed = parseFlags(rest)
    if (parsed === undefined || parsed.positionals.length > 1) return undefined
    return { _tag: "Space", dir: parsed.positionals[0], flags: parsed.flags }
  }
  const parsed = parseFlags(argv)
  if (parsed === undefined || parsed.positionals.length > 0) return undefined
  return { _tag: "Chat", flags: parsed.flags }
}
