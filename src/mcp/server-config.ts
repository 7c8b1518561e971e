/**
 * A config.json `mcpServers` entry made ready to start (SPEC B4): `${env:VAR}` replaced from the
 * environment Crystal was given (at start, in memory only: the expanded values are never written
 * anywhere), a stdio server's working directory resolved against the workspace, and the defaults
 * filled in. A missing variable makes the server fail with a note naming it; the session goes on.
 * The values `${env:…}` puts into a server's headers, and into its env under a name that reads like
 * a credential (…TOKEN, …KEY, …SECRET, …PASSWORD, …AUTH…, …CRED…, on either side), are the plan's
 * `secrets`, which join the session's Redactor (src/secrets/redactor.ts), so a server that echoes
 * them never gets them into a session file or a model request. Not every env value: a
 * copied `"HOME": "${env:HOME}"` would redact every path under the home in every tool's output.
 */
import * as path from "node:path"
import { MIN_SECRET_LENGTH } from "../bash/shell-env.ts"
import type { McpServerSettings } from "../config/schema.ts"
import { shellWords } from "../terminal/shell-words.ts"

export const mcpDefaults = { startupTimeoutSeconds: 10, toolTimeoutSeconds: 120, trustAnnotations: false, sampling: false } as const

export type McpEndpoint =
  | {
      readonly kind: "stdio"
      readonly command: string
      readonly args: ReadonlyArray<string>
      readonly env: Readonly<Record<string, string>>
      readonly cwd: string
    }
  | { readonly kind: "http"; readonly url: string; readonly headers: Readonly<Record<string, string>> }

export interface McpServerPlan {
  readonly name: string
  /** config.json ("home") or the workspace's trusted .crystal/mcp.json. */
  readonly source: "home" | "workspace"
  readonly enabled: boolean
  readonly startupTimeoutMs: number
  readonly toolTimeoutMs: number
  readonly allow: ReadonlyArray<string> | undefined
  readonly deny: ReadonlyArray<string>
  readonly trustAnnotations: boolean
  /** The server may ask the session's model (each request approved by the operator). */
  readonly sampling: boolean
  /** How to reach it; a string says why it cannot be started (a missing variable). */
  readonly endpoint: McpEndpoint | string
  /** The endpoint as configured, `${env:…}` unexpanded: what `crystal mcp show` and /mcp print. */
  readonly shown: string
  /** The credentials `${env:…}` put into headers or env (at least MIN_SECRET_LENGTH long): redacted wherever a tool's output goes. */
  readonly secrets: ReadonlyArray<string>
}

type Env = Readonly<Record<string, string | undefined>>

const reference = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g

class MissingVariable extends Error {}

/** An env name that reads like a credential (on either side of `${env:…}`). */
export const credentialName = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|AUTH|CRED/i

/**
 * `text` with its references replaced; with `secrets`, each value put in for which `isSecret`
 * (given the variable's name) holds is added to it.
 */
const expand = (text: string, env: Env, field: string, secrets?: { readonly into: Set<string>; readonly isSecret: (variable: string) => boolean }): string =>
  text.replace(reference, (_, name: string) => {
    const value = env[name]
    if (value === undefined) throw new MissingVariable(`${field} names \${env:${name}}, which is not set`)
    if (secrets !== undefined && value.trim().length >= MIN_SECRET_LENGTH && secrets.isSecret(name)) secrets.into.add(value.trim())
    return value
  })

/** Headers: every value put in is a secret. Env: those where the key or the variable reads like a credential. */
const expandMap = (values: Readonly<Record<string, string>> | undefined, env: Env, field: "env" | "headers", into: Set<string>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(values ?? {})) {
    const isSecret = (variable: string) => field === "headers" || credentialName.test(key) || credentialName.test(variable)
    out[key] = expand(value, env, `${field}.${key}`, { into, isSecret })
  }
  return out
}

/**
 * `baseEnv` is what a stdio server inherits (the shell's environment: Crystal's minus the provider
 * keys, src/bash/shell-env.ts); its own `env` goes over it. `env` is where `${env:…}` is read.
 */
export const planServer = (name: string, settings: McpServerSettings, options: { readonly workspace: string; readonly env: Env; readonly baseEnv: Readonly<Record<string, string>>; readonly source?: "home" | "workspace" }): McpServerPlan => {
  const common = {
    name,
    source: options.source ?? "home",
    enabled: settings.enabled ?? true,
    startupTimeoutMs: (settings.startupTimeoutSeconds ?? mcpDefaults.startupTimeoutSeconds) * 1000,
    toolTimeoutMs: (settings.toolTimeoutSeconds ?? mcpDefaults.toolTimeoutSeconds) * 1000,
    allow: settings.tools?.allow,
    deny: settings.tools?.deny ?? [],
    trustAnnotations: settings.trustAnnotations ?? mcpDefaults.trustAnnotations,
    sampling: settings.sampling ?? mcpDefaults.sampling
  }
  const shown = settings.url ?? shellWords([settings.command ?? "", ...(settings.args ?? [])])
  const secrets = new Set<string>()
  try {
    const endpoint: McpEndpoint =
      settings.url !== undefined
        ? { kind: "http", url: expand(settings.url, options.env, "url"), headers: expandMap(settings.headers, options.env, "headers", secrets) }
        : {
            kind: "stdio",
            command: expand(settings.command ?? "", options.env, "command"),
            args: (settings.args ?? []).map((arg, i) => expand(arg, options.env, `args[${i}]`)),
            env: { ...options.baseEnv, ...expandMap(settings.env, options.env, "env", secrets) },
            cwd: path.resolve(options.workspace, expand(settings.cwd ?? ".", options.env, "cwd"))
          }
    return { ...common, endpoint, shown, secrets: [...secrets] }
  } catch (error) {
    if (error instanceof MissingVariable) return { ...common, endpoint: error.message, shown, secrets: [] }
    throw error
  }
}
