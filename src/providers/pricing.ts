/**
 * What a model costs, by model family, for the built-in providers; config.json `pricing` overrides
 * it per "provider/model". A model no rule covers has no price: its usage is shown in tokens only.
 *
 * Source: the providers' list prices (standard tier, US dollars per million tokens) as published in
 * late 2025 on docs.anthropic.com/en/docs/about-claude/pricing, platform.openai.com/docs/pricing,
 * ai.google.dev/gemini-api/docs/pricing and api-docs.deepseek.com/quick_start/pricing. They were
 * written down from those pages, not fetched at run time; prices change, config.json corrects them.
 * Left out on purpose: models priced by prompt length (Gemini 2.5 Pro doubles above 200k tokens),
 * because a session's totals cannot say which requests were long, and model names these pages did
 * not list (a newer model is unpriced until config.json prices it, never priced like its family).
 */
import type { PriceSettings } from "../config/schema.ts"

export type Price = PriceSettings

interface PriceRule {
  readonly provider: string
  readonly pattern: RegExp
  readonly price: Price
}

/** An optional dated snapshot suffix: claude-sonnet-4-5-20250929, gpt-4.1-2025-04-14. */
const dated = String.raw`(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)?$`
const family = (name: string): RegExp => new RegExp(`^${name}${dated}`)

const rules: ReadonlyArray<PriceRule> = [
  // Anthropic: cache writes are the 5-minute writes (1.25 x input), reads 0.1 x input.
  { provider: "anthropic", pattern: family("claude-opus-4-5"), price: { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 } },
  { provider: "anthropic", pattern: family("claude-opus-4(-1)?"), price: { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 } },
  { provider: "anthropic", pattern: family("claude-sonnet-4(-5)?"), price: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 } },
  { provider: "anthropic", pattern: family("claude-3-7-sonnet"), price: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 } },
  { provider: "anthropic", pattern: family("claude-haiku-4-5"), price: { input: 1, output: 5, cachedInput: 0.1, cacheWrite: 1.25 } },
  { provider: "anthropic", pattern: family("claude-3-5-haiku"), price: { input: 0.8, output: 4, cachedInput: 0.08, cacheWrite: 1 } },
  // OpenAI: cache writes cost nothing extra.
  { provider: "openai", pattern: family(String.raw`gpt-5(\.1)?(-chat|-codex)?`), price: { input: 1.25, output: 10, cachedInput: 0.125 } },
  { provider: "openai", pattern: family("gpt-5-mini"), price: { input: 0.25, output: 2, cachedInput: 0.025 } },
  { provider: "openai", pattern: family("gpt-5-nano"), price: { input: 0.05, output: 0.4, cachedInput: 0.005 } },
  { provider: "openai", pattern: family(String.raw`gpt-4\.1`), price: { input: 2, output: 8, cachedInput: 0.5 } },
  { provider: "openai", pattern: family(String.raw`gpt-4\.1-mini`), price: { input: 0.4, output: 1.6, cachedInput: 0.1 } },
  { provider: "openai", pattern: family(String.raw`gpt-4\.1-nano`), price: { input: 0.1, output: 0.4, cachedInput: 0.025 } },
  // The first gpt-4o snapshot (2024-05-13) cost twice as much: only the later ones match.
  { provider: "openai", pattern: /^gpt-4o(-2024-08-06|-2024-11-20)?$/, price: { input: 2.5, output: 10, cachedInput: 1.25 } },
  { provider: "openai", pattern: family("gpt-4o-mini"), price: { input: 0.15, output: 0.6, cachedInput: 0.075 } },
  { provider: "openai", pattern: family("o3"), price: { input: 2, output: 8, cachedInput: 0.5 } },
  { provider: "openai", pattern: family("o4-mini"), price: { input: 1.1, output: 4.4, cachedInput: 0.275 } },
  // Gemini: text and image input; output includes the thinking.
  { provider: "gemini", pattern: family(String.raw`gemini-2\.5-flash`), price: { input: 0.3, output: 2.5, cachedInput: 0.03 } },
  { provider: "gemini", pattern: family(String.raw`gemini-2\.5-flash-lite`), price: { input: 0.1, output: 0.4, cachedInput: 0.01 } },
  // DeepSeek V3.2: both names, one price; cached = a cache hit.
  { provider: "deepseek", pattern: /^deepseek-(chat|reasoner)$/, price: { input: 0.28, output: 0.42, cachedInput: 0.028 } }
]

/** The built-in price of `provider/id`, if a family rule covers it. */
export const builtinPrice = (provider: string, id: string): Price | undefined =>
  rules.find((rule) => rule.provider === provider && rule.pattern.test(id))?.price

/** Prices by "provider/model": config.json's first, then the built-in table. */
export type PriceLookup = (ref: string) => Price | undefined

export const priceLookup = (overrides: Readonly<Record<string, Price>> | undefined): PriceLookup => (ref) => {
  const configured = overrides?.[ref]
  if (configured !== undefined) return configured
  const slash = ref.indexOf("/")
  return slash < 0 ? undefined : builtinPrice(ref.slice(0, slash), ref.slice(slash + 1))
}
