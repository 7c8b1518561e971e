/**
 * Usage priced: what tokens cost at a model's price, and a session's or turn's cost from its usage by
 * model. Any usage without a price (an unpriced model, or totals saved before usage was kept by
 * model) makes the cost unknown: tokens are shown alone, never a partial sum that looks complete.
 */
import { addUsage, emptyUsage, type SessionDocument } from "../session/document.ts"
import type { Usage } from "../session/items.ts"
import type { Price, PriceLookup } from "./pricing.ts"

/** US dollars for `usage` at `price`; cache reads and writes at their own prices, the input price when none is given. */
export const costOf = (usage: Usage, price: Price): number => {
  const cached = usage.cachedInputTokens ?? 0
  const written = usage.cacheWriteTokens ?? 0
  const uncached = Math.max(0, usage.inputTokens - cached - written)
  const micro = uncached * price.input + cached * (price.cachedInput ?? price.input) + written * (price.cacheWrite ?? price.input) + usage.outputTokens * price.output
  return micro / 1_000_000
}

export interface CostedUsage {
  readonly usage: Usage
  /** Undefined when some of the usage has no price. */
  readonly usd: number | undefined
  /** Models with usage and no price. */
  readonly unpriced: ReadonlyArray<string>
  /** Part of `usage` is not attributed to a model (a session saved before usage was kept by model). */
  readonly unattributed: boolean
}

const hasTokens = (usage: Usage): boolean => usage.inputTokens > 0 || usage.outputTokens > 0

/** Usage by "provider/model" priced; `total`, when given, is the whole usage the models' parts should add up to. */
export const costUsage = (byModel: Readonly<Record<string, Usage>>, prices: PriceLookup, total?: Usage): CostedUsage => {
  let sum = emptyUsage
  let usd = 0
  const unpriced: Array<string> = []
  for (const [model, usage] of Object.entries(byModel)) {
    sum = addUsage(sum, usage)
    const price = prices(model)
    if (price !== undefined) usd += costOf(usage, price)
    else if (hasTokens(usage)) unpriced.push(model)
  }
  const whole = total ?? sum
  const unattributed = whole.inputTokens > sum.inputTokens || whole.outputTokens > sum.outputTokens
  return { usage: whole, usd: unpriced.length > 0 || unattributed ? undefined : usd, unpriced, unattributed }
}

/** Usage by model of assistant messages (the shape a turn's messages have). */
export const usageByModel = (messages: ReadonlyArray<{ readonly model: string; readonly usage?: Usage | undefined }>): Record<string, Usage> => {
  const byModel: Record<string, Usage> = {}
  for (const message of messages) {
    if (message.usage !== undefined) byModel[message.model] = addUsage(byModel[message.model] ?? emptyUsage, message.usage)
  }
  return byModel
}

/** $0.0042 below a dollar (a turn often costs cents), $12.34 above. */
export const formatUsd = (usd: number): string => `$${usd.toFixed(usd < 1 ? 4 : 2)}`

const count = (tokens: number): string => tokens.toLocaleString("en-US")

/** "12,345 in (8,000 cached, 300 cache writes), 1,234 out (500 reasoning)". */
export const tokensText = (usage: Usage): string => {
  const inputParts = [
    ...(usage.cachedInputTokens ? [`${count(usage.cachedInputTokens)} cached`] : []),
    ...(usage.cacheWriteTokens ? [`${count(usage.cacheWriteTokens)} cache writes`] : [])
  ]
  const input = `${count(usage.inputTokens)} in${inputParts.length > 0 ? ` (${inputParts.join(", ")})` : ""}`
  const output = `${count(usage.outputTokens)} out${usage.reasoningTokens ? ` (${count(usage.reasoningTokens)} reasoning)` : ""}`
  return `${input}, ${output}`
}

/** The cost, or why there is none. */
export const costText = (costed: CostedUsage): string => {
  if (costed.usd !== undefined) return formatUsd(costed.usd)
  if (costed.unpriced.length > 0) return `unknown (no price for ${costed.unpriced.join(", ")}; set "pricing" in config.json)`
  return "unknown (some usage was saved before Crystal kept it by model)"
}

/** Tokens, then the cost or why there is none. */
export const costedText = (costed: CostedUsage): string => `${tokensText(costed.usage)} · cost ${costText(costed)}`

/** A session's whole usage priced (older sessions have totals only: their cost is unknown). */
export const sessionCost = (doc: Pick<SessionDocument, "usage" | "usageByModel">, prices: PriceLookup): CostedUsage =>
  costUsage(doc.usageByModel ?? {}, prices, doc.usage)
