/**
 * The environment shell commands run with (README "Secrets"): Crystal's own, minus every provider
 * key it knows — any `*_API_KEY`, the built-in providers' key variables, every `apiKeyEnv` of
 * config.json, the operator's `shellEnv.exclude` — with `shellEnv.set` applied last. The values
 * of the names taken out are the session's known secrets (its Redactor, src/secrets/redactor.ts).
 */
import type { Config } from "../config/schema.ts"
import { builtinProviders } from "../providers/builtin.ts"

type Env = Readonly<Record<string, string | undefined>>

/** What `"inherit": false` keeps: enough for programs to find each other and print text. */
const BASE_NAMES = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "NO_COLOR", "LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR"]

/** Credentials the SDKs read besides the providers' key variables. */
const OTHER_CREDENTIALS = ["ANTHROPIC_AUTH_TOKEN", "*_API_KEY"]

/** Shorter values are not treated as secrets: redacting "1" or "true" everywhere would garble every output. */
export const MIN_SECRET_LENGTH = 8

const globMatcher = (patterns: ReadonlyArray<string>): ((name: string) => boolean) => {
  const exact = new Set<string>()
  const wild: Array<RegExp> = []
  for (const pattern of patterns) {
    if (pattern.includes("*")) wild.push(new RegExp(`^${pattern.split("*").map((part) => part.replace(/[^A-Za-z0-9_]/g, "\\$&")).join(".*")}$`, "i"))
    else exact.add(pattern)
  }
  return (name) => exact.has(name) || wild.some((pattern) => pattern.test(name))
}

type ShellConfig = Pick<Config, "providers" | "shellEnv">

/** Is `name` a variable commands never get (and whose value is redacted)? */
export const deniedNameMatcher = (config: ShellConfig): ((name: string) => boolean) => {
  const names = [...OTHER_CREDENTIALS, ...builtinProviders.flatMap((provider) => provider.apiKeyEnv), ...(config.shellEnv?.exclude ?? [])]
  for (const provider of Object.values(config.providers ?? {})) {
    if (provider.apiKeyEnv !== undefined) names.push(provider.apiKeyEnv)
  }
  return globMatcher(names)
}

/** The environment for shell commands. */
export const shellEnvironment = (config: ShellConfig, env: Env): Record<string, string> => {
  const denied = deniedNameMatcher(config)
  const inherit = config.shellEnv?.inherit ?? true
  const inherited = inherit === true ? () => true : globMatcher([...BASE_NAMES, ...(inherit === false ? [] : inherit)])
  const result: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && inherited(name) && !denied(name)) result[name] = value
  }
  return { ...result, ...config.shellEnv?.set }
}

/** The values of the denied variables present in `env`: what must never appear in a tool output. */
export const secretValues = (config: ShellConfig, env: Env): Array<string> => {
  const denied = deniedNameMatcher(config)
  const values = new Set<string>()
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.trim().length >= MIN_SECRET_LENGTH && denied(name)) values.add(value.trim())
  }
  for (const provider of Object.values(config.providers ?? {})) {
    for (const [header, value] of Object.entries(provider.headers ?? {})) {
      // A header carrying a credential (Authorization: Bearer …, x-api-key: …): its token is a secret.
      if (!/auth|key|token|secret/i.test(header)) continue
      const token = value.trim().split(/\s+/).pop() ?? ""
      if (token.length >= MIN_SECRET_LENGTH) values.add(token)
    }
  }
  return [...values]
}
