/**
 * Opens the connection to the model's provider before the runtime loads (~25 ms earlier than the
 * session's client would, docs/startup.md): for a remote API the TCP and TLS handshakes then run
 * while Crystal starts instead of after. The model is chosen by the same function the session
 * uses (src/providers/model-choice.ts), from config.json read raw; the session validates the file
 * as usual and refuses what is wrong. Nothing is sent on the connection, and a guess that turns out
 * wrong (a malformed file, say) costs one idle connection.
 */
import * as path from "node:path"
import { resolveHome } from "../config/paths.ts"
import { readRawConfig, type RawConfig } from "../config/raw-config.ts"
import type { Config } from "../config/schema.ts"
import { chooseModel, readApiKey } from "../providers/model-choice.ts"
import { preconnectEarly } from "../providers/preconnect.ts"
import type { SessionFlags } from "./flags.ts"

type Env = Readonly<Record<string, string | undefined>>

/** The base URL the session will connect to for a new session started with `flags`, when start-up can tell. */
export const expectedBaseURL = (flags: Pick<SessionFlags, "model" | "resume" | "continue">, env: Env, raw = readRawConfig(env)): string | undefined => {
  // A resumed session's model is in its file; not worth reading here.
  if (flags.resume !== undefined || flags.continue) return undefined
  if (raw === undefined) return undefined
  const configFile = path.join(resolveHome(env as NodeJS.ProcessEnv), "config.json")
  try {
    // Not validated yet: any value of the wrong type only makes this guess wrong or throw.
    const config = raw as Config
    const requested = flags.model === undefined ? undefined : { ref: flags.model, source: "--model" }
    const choice = chooseModel({ requested, config, configFile, env })
    if (choice._tag !== "Chosen") return undefined
    const { provider } = choice.entry
    // The session refuses a provider whose key is missing before it connects.
    if (provider.apiKeyEnv.length > 0 && readApiKey(provider, env) === undefined) return undefined
    return typeof provider.baseURL === "string" ? provider.baseURL : undefined
  } catch {
    return undefined
  }
}

export const connectEarly = (flags: Pick<SessionFlags, "model" | "resume" | "continue">, env: Env, raw: RawConfig | undefined): void => {
  const baseURL = expectedBaseURL(flags, env, raw)
  if (baseURL !== undefined) preconnectEarly(baseURL)
}
