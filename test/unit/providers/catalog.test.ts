import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { checkCredentials, resolveModel, type ModelChoice } from "../../../src/providers/catalog.ts"
import type { Config } from "../../../src/config/schema.ts"

const configFile = "/h/.crystal/config.json"

const local: Config = {
  providers: {
    local: {
      protocol: "openai-chat",
      baseURL: "http://127.0.0.1:8080/v1",
      apiKeyEnv: "LOCAL_API_KEY",
      headers: { "x-team": "a" },
      models: { "qwen3-coder": { contextWindow: 65536, maxOutputTokens: 4096, imageInput: true } }
    }
  }
}

const resolve = (choice: Partial<ModelChoice>) => resolveModel({ config: {}, configFile, env: {}, ...choice })
const ok = (choice: Partial<ModelChoice>) => Either.getOrThrow(resolve(choice))
const failure = (choice: Partial<ModelChoice>) => {
  const result = resolve(choice)
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${result.right.ref}`)
  return result.left.message
}

describe("model resolution", () => {
  it("uses a configured provider's model with its capabilities", () => {
    const entry = ok({ config: { ...local, model: "local/qwen3-coder" } })
    expect(entry.ref).toBe("local/qwen3-coder")
    expect(entry.provider).toEqual({
      name: "local",
      protocol: "openai-chat",
      baseURL: "http://127.0.0.1:8080/v1",
      apiKeyEnv: ["LOCAL_API_KEY"],
      headers: { "x-team": "a" }
    })
    expect(entry.capabilities).toEqual({
      contextWindow: 65536,
      maxOutputTokens: 4096,
      imageInput: true,
      reasoning: false,
      // An OpenAI-compatible server documents no image limit: the media store's 20 MiB cap.
      imageLimits: { maxBytes: 20 * 1024 * 1024, maxPixelsPerSide: undefined }
    })
    expect(entry.listed).toBe(true)
  })

  it("accepts an unlisted model with conservative defaults", () => {
    const entry = ok({ config: local, requested: { ref: "local/other-model", source: "--model" } })
    expect(entry.listed).toBe(false)
    expect(entry.capabilities.contextWindow).toBe(32768)
    expect(entry.capabilities.imageInput).toBe(false)
  })

  it("keeps slashes inside the model id", () => {
    expect(ok({ config: local, requested: { ref: "local/org/model:7b", source: "--model" } }).id).toBe("org/model:7b")
  })

  it("prefers --model over config.json", () => {
    expect(ok({ config: { ...local, model: "local/qwen3-coder" }, requested: { ref: "local/x", source: "--model" } }).id).toBe("x")
  })

  it("resolves a bare model id listed by exactly one provider", () => {
    expect(ok({ config: local, requested: { ref: "qwen3-coder", source: "--model" } }).ref).toBe("local/qwen3-coder")
  })

  it("refuses an ambiguous bare model id, naming the candidates", () => {
    const config: Config = { providers: { a: { models: { m: {} } }, b: { models: { m: {} } } } }
    expect(failure({ config, requested: { ref: "m", source: "--model" } })).toBe(
      "--model: the model 'm' is offered by several providers (a, b); name it as PROVIDER/MODEL"
    )
  })

  it("names the known providers when the provider is unknown", () => {
    expect(failure({ config: local, requested: { ref: "nope/m", source: "--model" } })).toBe(
      "--model: unknown provider 'nope' in 'nope/m' (known: local, anthropic, openai, gemini, deepseek, ollama)"
    )
  })

  it("uses the only configured model when none is named", () => {
    expect(ok({ config: local }).ref).toBe("local/qwen3-coder")
  })

  it("detects built-in providers from the environment in a fixed order", () => {
    expect(ok({ env: { OPENAI_API_KEY: "k", DEEPSEEK_API_KEY: "k" } }).ref).toBe("openai/gpt-5.4")
    expect(ok({ env: { GOOGLE_API_KEY: "k" } }).provider.protocol).toBe("gemini")
    expect(ok({ env: { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" } }).provider.name).toBe("anthropic")
  })

  it("honours base-URL overrides", () => {
    expect(ok({ env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://proxy/v1" } }).provider.baseURL).toBe("http://proxy/v1")
    expect(ok({ env: { OLLAMA_HOST: "gpu-box:11434" }, requested: { ref: "ollama/llama3", source: "--model" } }).provider.baseURL).toBe(
      "http://gpu-box:11434"
    )
  })

  it("says how to configure a provider when there is none", () => {
    expect(failure({})).toMatch(/^no model provider is configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY, .*\/h\/\.crystal\/config\.json/)
  })

  it("asks for a model name when only OLLAMA_HOST is set", () => {
    expect(failure({ env: { OLLAMA_HOST: "127.0.0.1:11434" } })).toBe("OLLAMA_HOST is set but no model is named: pass --model ollama/MODEL")
  })
})

describe("credentials", () => {
  it("requires the key a provider names, and only then", () => {
    const entry = ok({ config: { ...local, model: "local/qwen3-coder" } })
    const missing = checkCredentials(entry, {})
    expect(Either.isLeft(missing) && missing.left.message).toBe("provider 'local' needs an API key: set LOCAL_API_KEY in the environment")
    expect(Either.isRight(checkCredentials(entry, { LOCAL_API_KEY: "k" }))).toBe(true)
    const keyless = ok({ config: { providers: { lan: { baseURL: "http://x/v1", models: { m: {} } } } } })
    expect(Either.isRight(checkCredentials(keyless, {}))).toBe(true)
  })
})

describe("built-in model knowledge", () => {
  it("knows the families of the built-in providers, and config.json overrides it field by field", () => {
    const sonnet = ok({ requested: { ref: "anthropic/claude-sonnet-5-5", source: "--model" } })
    expect(sonnet.capabilities).toEqual({
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      imageInput: true,
      reasoning: true,
      imageLimits: { maxBytes: 3_932_160, maxPixelsPerSide: 1568 }
    })
    expect(sonnet.listed).toBe(true)
    const overridden = ok({
      config: { providers: { anthropic: { models: { "claude-sonnet-5-5": { contextWindow: 1_000_000 } } } } },
      requested: { ref: "anthropic/claude-sonnet-5-5", source: "--model" }
    })
    expect(overridden.capabilities).toMatchObject({ contextWindow: 1_000_000, maxOutputTokens: 64_000, reasoning: true })
    expect(ok({ requested: { ref: "deepseek/deepseek-chat", source: "--model" } }).capabilities.imageInput).toBe(false)
    expect(ok({ requested: { ref: "openai/gpt-5.4", source: "--model" } }).capabilities.reasoning).toBe(true)
  })

  it("has each protocol's image limits, overridden per model by maxImageBytes and maxImagePixels", () => {
    const limits = (ref: string, config: Config = {}) => ok({ config, requested: { ref, source: "--model" } }).capabilities.imageLimits
    expect(limits("openai/gpt-5.4")).toEqual({ maxBytes: 20 * 1024 * 1024, maxPixelsPerSide: 2048 })
    expect(limits("gemini/gemini-pro-latest")).toEqual({ maxBytes: 14 * 1024 * 1024, maxPixelsPerSide: undefined })
    expect(limits("ollama/llava", { providers: { ollama: { models: { llava: { imageInput: true } } } } })).toEqual({ maxBytes: 20 * 1024 * 1024, maxPixelsPerSide: undefined })
    const tuned = { providers: { anthropic: { models: { "claude-sonnet-5-5": { maxImageBytes: 1_000_000, maxImagePixels: 1000 } } } } }
    expect(limits("anthropic/claude-sonnet-5-5", tuned)).toEqual({ maxBytes: 1_000_000, maxPixelsPerSide: 1000 })
    expect(limits("anthropic/claude-sonnet-5-5", { providers: { anthropic: { models: { "claude-sonnet-5-5": { maxImagePixels: 1000 } } } } })).toEqual({ maxBytes: 3_932_160, maxPixelsPerSide: 1000 })
  })

  it("does not lend a built-in family to a custom provider", () => {
    const entry = ok({ config: { providers: { gateway: { baseURL: "http://gw/v1" } } }, requested: { ref: "gateway/gpt-5.4", source: "--model" } })
    expect(entry.listed).toBe(false)
    expect(entry.capabilities.contextWindow).toBe(32_768)
  })

  it("resolves a bare id through the family it belongs to", () => {
    expect(ok({ requested: { ref: "claude-opus-5", source: "--model" } }).ref).toBe("anthropic/claude-opus-5")
    expect(failure({ requested: { ref: "mystery-model", source: "--model" } })).toBe(
      "--model: no provider is known to offer the model 'mystery-model'; name it as PROVIDER/MODEL"
    )
  })
})
