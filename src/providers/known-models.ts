/**
 * What Crystal knows about the built-in providers' models without being told (SPEC I3), by model
 * family: lineups change every few months, families rarely. config.json entries override these
 * field by field; a model no rule matches runs with conservative defaults (catalog.ts).
 */
import type { ModelSettings } from "../config/schema.ts"

interface FamilyRule {
  readonly provider: string
  readonly pattern: RegExp
  readonly settings: Required<Pick<ModelSettings, "contextWindow" | "maxOutputTokens" | "imageInput" | "reasoning">>
}

const rules: ReadonlyArray<FamilyRule> = [
  // OpenAI: chat-tuned snapshots answer without reasoning; the rest of GPT-5 reasons.
  { provider: "openai", pattern: /^gpt-5(\.\d+)?-chat/, settings: { contextWindow: 128_000, maxOutputTokens: 16_384, imageInput: true, reasoning: false } },
  { provider: "openai", pattern: /^gpt-5/, settings: { contextWindow: 400_000, maxOutputTokens: 128_000, imageInput: true, reasoning: true } },
  { provider: "openai", pattern: /^gpt-4\.1/, settings: { contextWindow: 1_047_576, maxOutputTokens: 32_768, imageInput: true, reasoning: false } },
  { provider: "openai", pattern: /^gpt-4o/, settings: { contextWindow: 128_000, maxOutputTokens: 16_384, imageInput: true, reasoning: false } },
  { provider: "openai", pattern: /^o[134](-|$)/, settings: { contextWindow: 200_000, maxOutputTokens: 100_000, imageInput: true, reasoning: true } },
  { provider: "anthropic", pattern: /^claude-opus-4-[01]/, settings: { contextWindow: 200_000, maxOutputTokens: 32_000, imageInput: true, reasoning: true } },
  { provider: "anthropic", pattern: /^claude-/, settings: { contextWindow: 200_000, maxOutputTokens: 64_000, imageInput: true, reasoning: true } },
  { provider: "gemini", pattern: /^gemini-(2\.5|[3-9])|^gemini-(pro|flash|flash-lite)-latest$/, settings: { contextWindow: 1_048_576, maxOutputTokens: 65_536, imageInput: true, reasoning: true } },
  { provider: "gemini", pattern: /^gemini-/, settings: { contextWindow: 1_048_576, maxOutputTokens: 8_192, imageInput: true, reasoning: false } },
  { provider: "deepseek", pattern: /^deepseek-reasoner$/, settings: { contextWindow: 128_000, maxOutputTokens: 64_000, imageInput: false, reasoning: true } },
  { provider: "deepseek", pattern: /^deepseek-chat$/, settings: { contextWindow: 128_000, maxOutputTokens: 8_192, imageInput: false, reasoning: false } }
]

/** The built-in knowledge of `provider/id`, if a family rule covers it. */
export const knownModel = (provider: string, id: string): ModelSettings | undefined =>
  rules.find((rule) => rule.provider === provider && rule.pattern.test(id))?.settings

/** Built-in providers whose families include this bare model id (for `--model ID` without a provider). */
export const providersKnowing = (id: string): ReadonlyArray<string> => [
  ...new Set(rules.filter((rule) => rule.pattern.test(id)).map((rule) => rule.provider))
]
