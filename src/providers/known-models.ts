/**
 * What Crystal knows about the built-in providers' models without being told (SPEC I3), by model
 * family: lineups change every few months, families rarely. config.json entries override these
 * field by field; a model no rule matches runs with conservative defaults (catalog.ts).
 */
import type { ModelSettings, Protocol } from "../config/schema.ts"
import type { ImageLimits } from "../media/image-limits.ts"

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

/** The media store's cap (SPEC I4): the limit where a provider documents none. */
const storeCap = 20 * 1024 * 1024

/**
 * Each protocol's documented image limits (config.json's maxImageBytes / maxImagePixels override
 * them per model). Bytes are of the raw file; where a provider limits the base64 text or the whole
 * request, the figure is turned into raw bytes (base64 is 4/3 of them).
 */
const imageLimitsByProtocol: Record<Protocol, ImageLimits> = {
  // Anthropic Messages: "image exceeds 5 MB maximum: … > 5242880 bytes" is the API's refusal of a
  // base64 source over 5 MiB (anthropics/claude-code#14887), so 3.75 MiB raw. Images over 8000 px
  // are rejected, and any over 1568 px on the long edge are first scaled down by the API "without
  // giving you any additional model performance" (docs.anthropic.com/en/docs/vision, "Evaluate
  // image size"): shrinking to 1568 here sends what the model sees and nothing more.
  anthropic: { maxBytes: (5 * 1024 * 1024 * 3) / 4, maxPixelsPerSide: 1568 },
  // OpenAI Responses: no per-image byte limit, only per request (50 MB, "Image input requirements",
  // developers.openai.com/api/docs/guides/images-vision): the store cap. Without a `detail` (the
  // encoder sends none: auto) an image is first "scaled to fit within a 2048 x 2048 square"
  // (same guide, "Calculating costs"), so 2048.
  "openai-responses": { maxBytes: storeCap, maxPixelsPerSide: 2048 },
  // Any OpenAI-compatible server: no limit common to them is documented.
  "openai-chat": { maxBytes: storeCap, maxPixelsPerSide: undefined },
  // DeepSeek's chat models take no images at all (imageInput is false for them).
  deepseek: { maxBytes: storeCap, maxPixelsPerSide: undefined },
  // Gemini: inline data is for requests under 20 MB in total, larger ones must use the Files API
  // (ai.google.dev/gemini-api/docs/image-understanding, "Image input"); 14 MiB raw is 18.7 MiB of
  // base64, leaving room for the text. No pixel limit: images are budgeted in tokens (media_resolution).
  gemini: { maxBytes: 14 * 1024 * 1024, maxPixelsPerSide: undefined },
  // Ollama's API (github.com/ollama/ollama docs/api.md, "images") documents no limit: the store cap.
  ollama: { maxBytes: storeCap, maxPixelsPerSide: undefined }
}

export const defaultImageLimits = (protocol: Protocol): ImageLimits => imageLimitsByProtocol[protocol]
