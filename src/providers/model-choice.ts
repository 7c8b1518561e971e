/**
 * Which model a session talks to, as plain data: providers resolved from config.json, the
 * built-in list and the environment, model capabilities, and the choice between explicit,
 * configured and detected models. Nothing here loads Effect, so the start-up code that runs
 * before the runtime (src/cli/early-start.ts) makes the same choice as the session will;
 * catalog.ts gives the refusals as the session's typed errors.
 */
import type { Config, ModelSettings, Protocol } from "../config/schema.ts"
import { builtinProviders, findBuiltinProvider } from "./builtin.ts"
import type { ImageLimits } from "../media/image-limits.ts"
import { defaultImageLimits, knownModel, providersKnowing } from "./known-models.ts"

export interface ResolvedProvider {
  readonly name: string
  readonly protocol: Protocol
  readonly baseURL: string
  /** Environment variables tried in order for the API key; empty = the provider takes no key. */
  readonly apiKeyEnv: ReadonlyArray<string>
  readonly headers: Readonly<Record<string, string>>
}

export interface ModelCapabilities {
  readonly contextWindow: number
  readonly maxOutputTokens: number
  readonly imageInput: boolean
  readonly reasoning: boolean
  /**
   * The largest image the model takes; a larger one is shrunk before it is stored. Every entry the
   * catalog resolves has it; an entry built by hand without it gets the 20 MiB store cap.
   */
  readonly imageLimits?: ImageLimits
}

/** What an image sent to `entry` must fit. */
export const imageLimitsOf = (entry: ModelEntry): ImageLimits =>
  entry.capabilities.imageLimits ?? defaultImageLimits(entry.provider.protocol)

export interface ModelEntry {
  /** "provider/model" */
  readonly ref: string
  readonly id: string
  readonly provider: ResolvedProvider
  readonly capabilities: ModelCapabilities
  /** False when the model is not listed anywhere and runs on conservative defaults. */
  readonly listed: boolean
}

/** For a model nobody described: small enough for most local servers, large enough to be useful. */
export const conservativeCapabilities: ModelCapabilities = {
  contextWindow: 32_768,
  maxOutputTokens: 8_192,
  imageInput: false,
  reasoning: false
}

export type Env = Readonly<Record<string, string | undefined>>

/** A model chosen, or why none could be: `no_model` when nothing names one at all (start-up then looks for a local Ollama). */
export type ModelChoiceResult =
  | { readonly _tag: "Chosen"; readonly entry: ModelEntry }
  | { readonly _tag: "Refused"; readonly reason: "config" | "no_model"; readonly message: string }

const chosen = (entry: ModelEntry): ModelChoiceResult => ({ _tag: "Chosen", entry })
const refused = (message: string, reason: "config" | "no_model" = "config"): ModelChoiceResult => ({ _tag: "Refused", reason, message })

const nonEmpty = (value: string | undefined): string | undefined => (value !== undefined && value !== "" ? value : undefined)

/** OLLAMA_HOST may be "host:port" without a scheme; "" stays "". */
export const ollamaBaseURL = (host: string): string => (host === "" || /^[a-z]+:\/\//i.test(host) ? host : `http://${host}`)

const resolveProvider = (name: string, config: Config, env: Env): ResolvedProvider | undefined => {
  const settings = config.providers?.[name]
  const builtin = findBuiltinProvider(name)
  if (settings === undefined && builtin === undefined) return undefined
  const envBaseURL = builtin === undefined ? undefined : nonEmpty(env[builtin.baseURLEnv])
  const protocol = settings?.protocol ?? builtin?.protocol ?? "openai-chat"
  const baseURL =
    settings?.baseURL ??
    (envBaseURL !== undefined && protocol === "ollama" ? ollamaBaseURL(envBaseURL) : envBaseURL) ??
    builtin?.defaultBaseURL ??
    ""
  return {
    name,
    protocol,
    baseURL,
    apiKeyEnv: settings?.apiKeyEnv !== undefined ? [settings.apiKeyEnv] : (builtin?.apiKeyEnv ?? []),
    headers: settings?.headers ?? {}
  }
}

const capabilitiesFrom = (settings: ModelSettings | undefined, protocol: Protocol): ModelCapabilities => {
  const limits = defaultImageLimits(protocol)
  return {
    contextWindow: settings?.contextWindow ?? conservativeCapabilities.contextWindow,
    maxOutputTokens: settings?.maxOutputTokens ?? conservativeCapabilities.maxOutputTokens,
    imageInput: settings?.imageInput ?? conservativeCapabilities.imageInput,
    reasoning: settings?.reasoning ?? conservativeCapabilities.reasoning,
    imageLimits: {
      maxBytes: settings?.maxImageBytes ?? limits.maxBytes,
      maxPixelsPerSide: settings?.maxImagePixels ?? limits.maxPixelsPerSide
    }
  }
}

/** config.json's entry wins field by field over the built-in knowledge of the model's family. */
const entryFor = (provider: ResolvedProvider, id: string, config: Config): ModelEntry => {
  const configured = config.providers?.[provider.name]?.models?.[id]
  const known = findBuiltinProvider(provider.name) === undefined ? undefined : knownModel(provider.name, id)
  return {
    ref: `${provider.name}/${id}`,
    id,
    provider,
    capabilities: capabilitiesFrom({ ...known, ...configured }, provider.protocol),
    listed: configured !== undefined || known !== undefined
  }
}

export const configuredProviderNames = (config: Config): ReadonlyArray<string> => Object.keys(config.providers ?? {})

export const knownProviderNames = (config: Config): ReadonlyArray<string> => [
  ...new Set([...configuredProviderNames(config), ...builtinProviders.map((provider) => provider.name)])
]

export const noProviderMessage = (configFile: string): string =>
  `no model provider is configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, DEEPSEEK_API_KEY or OLLAMA_HOST, ` +
  `or add a provider to ${configFile} (see "Configure a provider" in the README)`

const hasCredentials = (apiKeyEnv: ReadonlyArray<string>, env: Env): boolean =>
  apiKeyEnv.some((name) => nonEmpty(env[name]) !== undefined)

/** Parses "provider/model" (the model id may itself contain slashes) or a bare model id. */
const resolveRef = (
  ref: string,
  source: string,
  config: Config,
  env: Env
): ModelChoiceResult => {
  const slash = ref.indexOf("/")
  if (slash > 0 && slash < ref.length - 1) {
    const providerName = ref.slice(0, slash)
    const provider = resolveProvider(providerName, config, env)
    if (provider === undefined) {
      return refused(`${source}: unknown provider '${providerName}' in '${ref}' (known: ${knownProviderNames(config).join(", ")})`)
    }
    return chosen(entryFor(provider, ref.slice(slash + 1), config))
  }
  if (ref.trim() === "" || slash >= 0) {
    return refused(`${source}: expected PROVIDER/MODEL, got '${ref}'`)
  }
  const candidates = [
    ...new Set([
      ...configuredProviderNames(config).filter((name) => config.providers?.[name]?.models?.[ref] !== undefined),
      ...providersKnowing(ref)
    ])
  ]
  const [only] = candidates
  if (candidates.length === 1 && only !== undefined) {
    const provider = resolveProvider(only, config, env)
    if (provider !== undefined) return chosen(entryFor(provider, ref, config))
  }
  return refused(
    candidates.length === 0
      ? `${source}: no provider is known to offer the model '${ref}'; name it as PROVIDER/MODEL`
      : `${source}: the model '${ref}' is offered by several providers (${candidates.join(", ")}); name it as PROVIDER/MODEL`
  )
}

export interface ModelChoice {
  /** An explicit choice (--model, or the model of a resumed session) and where it came from, for errors. */
  readonly requested?: { readonly ref: string; readonly source: string } | undefined
  readonly config: Config
  readonly configFile: string
  readonly env: Env
}

/** Picks the model for a session: the explicit choice, then config.json "model", then the first detectable provider. */
export const chooseModel = ({ requested, config, configFile, env }: ModelChoice): ModelChoiceResult => {
  if (requested !== undefined) return resolveRef(requested.ref, requested.source, config, env)
  if (config.model !== undefined) return resolveRef(config.model, `${configFile}: model`, config, env)
  const configured = configuredProviderNames(config).flatMap((name) =>
    Object.keys(config.providers?.[name]?.models ?? {}).map((id) => `${name}/${id}`)
  )
  const [onlyConfigured] = configured
  if (configured.length === 1 && onlyConfigured !== undefined) {
    return resolveRef(onlyConfigured, configFile, config, env)
  }
  if (configured.length > 1) {
    return refused(`${configFile}: several models are configured (${configured.join(", ")}); choose one with "model" or --model`)
  }
  for (const builtin of builtinProviders) {
    const detected =
      builtin.apiKeyEnv.length === 0 ? nonEmpty(env[builtin.baseURLEnv]) !== undefined : hasCredentials(builtin.apiKeyEnv, env)
    if (!detected) continue
    if (builtin.defaultModel === undefined) {
      return refused(`${builtin.baseURLEnv} is set but no model is named: pass --model ${builtin.name}/MODEL`, "no_model")
    }
    return resolveRef(`${builtin.name}/${builtin.defaultModel}`, builtin.apiKeyEnv[0] ?? builtin.baseURLEnv, config, env)
  }
  return refused(noProviderMessage(configFile), "no_model")
}

/** The API key for a provider, read from the environment at the moment it is needed. */
export const readApiKey = (provider: ResolvedProvider, env: Env): string | undefined => {
  for (const name of provider.apiKeyEnv) {
    const value = nonEmpty(env[name])
    if (value !== undefined) return value
  }
  return undefined
}
