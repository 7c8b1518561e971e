import type { Protocol } from "../config/schema.ts"

export interface BuiltinProvider {
  readonly name: string
  readonly protocol: Protocol
  readonly defaultBaseURL: string
  /** Environment variable that overrides the base URL. */
  readonly baseURLEnv: string
  /** Environment variables tried in order for the API key; empty when the provider needs none. */
  readonly apiKeyEnv: ReadonlyArray<string>
  /** Used when the provider is auto-detected and no model was named. */
  readonly defaultModel: string | undefined
}

/** In auto-detection order: the first one whose credentials are in the environment wins. */
export const builtinProviders: ReadonlyArray<BuiltinProvider> = [
  {
    name: "anthropic",
    protocol: "anthropic",
    defaultBaseURL: "https://api.anthropic.com",
    baseURLEnv: "ANTHROPIC_BASE_URL",
    apiKeyEnv: ["ANTHROPIC_API_KEY"],
    defaultModel: "claude-sonnet-5-5"
  },
  {
    name: "openai",
    protocol: "openai-responses",
    defaultBaseURL: "https://api.openai.com/v1",
    baseURLEnv: "OPENAI_BASE_URL",
    apiKeyEnv: ["OPENAI_API_KEY"],
    defaultModel: "gpt-5.4"
  },
  {
    name: "gemini",
    protocol: "gemini",
    defaultBaseURL: "https://generativelanguage.googleapis.com",
    baseURLEnv: "GOOGLE_GEMINI_BASE_URL",
    apiKeyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    defaultModel: "gemini-pro-latest"
  },
  {
    name: "deepseek",
    protocol: "deepseek",
    defaultBaseURL: "https://api.deepseek.com",
    baseURLEnv: "DEEPSEEK_BASE_URL",
    apiKeyEnv: ["DEEPSEEK_API_KEY"],
    defaultModel: "deepseek-chat"
  },
  {
    name: "ollama",
    protocol: "ollama",
    defaultBaseURL: "http://127.0.0.1:11434",
    baseURLEnv: "OLLAMA_HOST",
    apiKeyEnv: [],
    defaultModel: undefined
  }
]

export const findBuiltinProvider = (name: string): BuiltinProvider | undefined =>
  builtinProviders.find((provider) => provider.name === name)
