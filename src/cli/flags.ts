/**
 * The session flags shared by `crystal`, `crystal space` and `crystal run`, declared once. The @effect/cli tree and
 * the start-up fast path (fast-args.ts) are both built from this table, and a parity test holds
 * them to the same results.
 */
import type { SessionRequest } from "../../layers/prepare.ts"

export type OutputFormat = "text" | "json"

export interface SessionFlags extends SessionRequest {
  readonly format: OutputFormat
  /** Image files attached to the `crystal run` prompt. */
  readonly image: ReadonlyArray<string>
  /** A plan file a `crystal run` Work turn starts from (docs/plans.md). */
  readonly plan: string | undefined
  /** `crystal run`: the JSON Schema file the final answer must match (stdout is then that JSON value). */
  readonly outputSchema: string | undefined
  readonly trustProjectTools: boolean
}

export interface FlagSpec {
  readonly name: string
  readonly kind: "value" | "repeated" | "choice" | "switch"
  readonly choices?: ReadonlyArray<string>
  readonly placeholder?: string
  readonly description: string
}

export const sessionFlagSpecs = {
  model: {
    name: "model",
    kind: "value",
    placeholder: "PROVIDER/MODEL",
    description: "Model to use, e.g. openai/gpt-5.1 or local/qwen3-coder (default: config.json \"model\", then the first provider found in the environment)"
  },
  mode: {
    name: "mode",
    kind: "choice",
    choices: ["plan", "work"],
    description: "plan: read-only tools, nothing can be changed or run but the session's plan file; work: every tool (default: work, or the resumed session's mode)"
  },
  approval: {
    name: "approval",
    kind: "choice",
    choices: ["plan", "default", "edit", "review", "audit", "full"],
    description:
      "Which calls run without asking: plan (reads only), default (reads inside the workspace), edit (+ workspace edits), review (a reviewer model decides the rest), audit (nothing), full (all but forbidden calls and writes outside the workspace)"
  },
  disableTool: {
    name: "disable-tool",
    kind: "repeated",
    placeholder: "NAME",
    description: "Remove a built-in tool for this process (repeatable; unknown names refuse to start)"
  },
  promptSet: {
    name: "prompt-set",
    kind: "value",
    placeholder: "NAME",
    description:
      "Use the prompt set ~/.crystal/promptsets/NAME for this process, even if disabled (\"default\": the built-in prompts); /promptset cannot switch it"
  },
  promptAttachments: {
    name: "prompt-attachments",
    kind: "choice",
    choices: ["on", "off"],
    description: "on (default): attach the enabled prompt attachments; off: attach none, and refuse to enable, disable or reorder them"
  },
  promptAttachment: {
    name: "prompt-attachment",
    kind: "repeated",
    placeholder: "NAME",
    description: "Attach the prompt attachment NAME after the enabled ones for this process, even if disabled (repeatable)"
  },
  image: {
    name: "image",
    kind: "repeated",
    placeholder: "FILE",
    description: "Attach the image FILE (png, jpeg, gif or webp) to the crystal run prompt (repeatable; the model must take images)"
  },
  plan: {
    name: "plan",
    kind: "value",
    placeholder: "FILE",
    description: "Start a crystal run Work turn from the plan in FILE (it becomes the session's plan file; the prompt, if any, goes with it)"
  },
  outputSchema: {
    name: "output-schema",
    kind: "value",
    placeholder: "FILE",
    description:
      "crystal run: the final answer must be one JSON value valid against the JSON Schema in FILE; stdout is exactly that value (with --format json, the done event's output). An invalid answer is retried once, then the run exits with 4"
  },
  format: {
    name: "format",
    kind: "choice",
    choices: ["text", "json"],
    description: "text: the answer on stdout, progress on stderr; json: one JSON event per line on stdout"
  },
  resume: {
    name: "resume",
    kind: "value",
    placeholder: "ID",
    description: "Continue the saved session ID (an unambiguous prefix is enough)"
  },
  continue: {
    name: "continue",
    kind: "switch",
    description: "Continue the most recent session of this workspace"
  },
  trustProjectTools: {
    name: "trust-project-tools",
    kind: "switch",
    description: "Offer this workspace's tool sets (.crystal/tools) without asking; nothing is stored (interactive sessions ask once and remember)"
  }
} as const satisfies Record<keyof SessionFlags, FlagSpec>

export const defaultSessionFlags: SessionFlags = {
  model: undefined,
  mode: undefined,
  approval: undefined,
  disableTool: [],
  promptSet: undefined,
  promptAttachments: "on",
  promptAttachment: [],
  format: "text",
  image: [],
  plan: undefined,
  outputSchema: undefined,
  resume: undefined,
  continue: false,
  trustProjectTools: false
}

/** What the command line asks for, however it was parsed. */
export type Invocation =
  | { readonly _tag: "Run"; readonly prompt: string | undefined; readonly flags: SessionFlags }
  | { readonly _tag: "Chat"; readonly flags: SessionFlags }
  /** `crystal space [DIR]`: a conversation in DIR, or in a workspace picked from the saved sessions. */
  | { readonly _tag: "Space"; readonly dir: string | undefined; readonly flags: SessionFlags }

/** The subcommands @effect/cli handles itself (their arguments are not session flags). */
export const otherCommands = ["sessions", "promptsets", "prompt-attachments", "plugins", "tools", "mcp", "agents", "acp", "checkpoints", "rewind"] as const

type FlagKey = keyof SessionFlags

const flagsByName: ReadonlyMap<string, readonly [FlagKey, FlagSpec]> = new Map(
  (Object.entries(sessionFlagSpecs) as Array<[FlagKey, FlagSpec]>).map(([key, spec]) => [`--${spec.name}`, [key, spec]] as const)
)

/** A word that is a flag, not a value or a positional: `-x`, `--name`, `--name=value` (`-`, `--` and `-5` are not). */
export const looksLikeFlag = (arg: string): boolean => /^--?[A-Za-z][\w-]*(=|$)/.test(arg)

const choicesText = (spec: FlagSpec): string => (spec.choices ?? []).join(", ")

const quoted = (value: string): string => JSON.stringify(value)

const needsValue = (flag: string, spec: FlagSpec): string =>
  spec.kind === "choice" ? `${flag} needs a value: one of ${choicesText(spec)}` : `${flag} needs a value (${flag} ${spec.placeholder ?? "VALUE"})`

export type ScannedArgs =
  | { readonly _tag: "Scanned"; readonly flags: SessionFlags; readonly positionals: ReadonlyArray<string> }
  /** What is wrong, naming the flag and the value, without the command's name. */
  | { readonly _tag: "Problem"; readonly problem: string }

/**
 * The one scanner of the session flags, serving the start-up fast path (fast-args.ts) and the
 * bad-flag check (flag-check.ts) alike. `--` ends the flags (what follows is positional); a flag's
 * value is the rest after `=` or the next word, and never empty, `--` or a word that looks like a
 * flag (@effect/cli would take `--model -x` as a model, but `-x` is far more likely a mistyped flag).
 */
export const scanSessionFlags = (args: ReadonlyArray<string>): ScannedArgs => {
  const flags: { -readonly [K in FlagKey]: SessionFlags[K] } = { ...defaultSessionFlags }
  // Values are checked against the table before they are stored, so this view is sound.
  const values = flags as Record<FlagKey, unknown>
  const given = new Map<FlagKey, string>()
  const positionals: Array<string> = []
  const problem = (text: string): ScannedArgs => ({ _tag: "Problem", problem: text })
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
    const found = flagsByName.get(flag)
    if (found === undefined) return problem(`unknown flag ${flag} (its flags: ${[...flagsByName.keys()].join(", ")}; --help lists them)`)
    const [key, spec] = found
    if (spec.kind === "switch") {
      if (eq > 0) return problem(`${flag} takes no value (got ${quoted(arg.slice(eq + 1))})`)
      if (given.has(key)) return problem(`${flag} is given twice`)
      given.set(key, "")
      values[key] = true
      continue
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[i + 1]
    if (value === undefined || value === "" || (eq < 0 && (value === "--" || looksLikeFlag(value)))) return problem(needsValue(flag, spec))
    if (eq < 0) i++
    if (spec.kind === "choice" && !(spec.choices ?? []).includes(value)) return problem(`${flag} ${quoted(value)} is not one of ${choicesText(spec)}`)
    if (spec.kind === "repeated") {
      values[key] = [...(values[key] as ReadonlyArray<string>), value]
      continue
    }
    const earlier = given.get(key)
    if (earlier !== undefined) return problem(`${flag} is given twice (${quoted(earlier)} and ${quoted(value)})`)
    given.set(key, value)
    values[key] = value
  }
  return { _tag: "Scanned", flags, positionals }
}

/** A session command line (`crystal`, `crystal run`, `crystal space`) read whole: what it asks for, or its one-line problem. */
export const scanSessionCommandLine = (
  argv: ReadonlyArray<string>
): { readonly _tag: "Invocation"; readonly invocation: Invocation } | { readonly _tag: "Problem"; readonly message: string } => {
  const [first, ...rest] = argv
  const command = first === "run" ? "crystal run" : first === "space" ? "crystal space" : "crystal"
  const scanned = scanSessionFlags(command === "crystal" ? argv : rest)
  if (scanned._tag === "Problem") return { _tag: "Problem", message: `${command}: ${scanned.problem}` }
  const { flags, positionals } = scanned
  if (command !== "crystal run" && flags.outputSchema !== undefined) {
    return { _tag: "Problem", message: `${command}: --output-schema is for crystal run (one structured answer for a script); an interactive session does not take it` }
  }
  if (command === "crystal") {
    if (positionals.length === 0) return { _tag: "Invocation", invocation: { _tag: "Chat", flags } }
    return { _tag: "Problem", message: `crystal: unknown command ${quoted(positionals[0] ?? "")} (commands: run, space, ${otherCommands.join(", ")})` }
  }
  if (positionals.length > 1) {
    const what = command === "crystal run" ? "prompt" : "directory"
    return { _tag: "Problem", message: `${command}: one ${what} only, got ${positionals.length} (${positionals.map(quoted).join(", ")}); quote a prompt with spaces` }
  }
  const invocation: Invocation =
    command === "crystal run" ? { _tag: "Run", prompt: positionals[0], flags } : { _tag: "Space", dir: positionals[0], flags }
  return { _tag: "Invocation", invocation }
}
