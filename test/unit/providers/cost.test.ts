/** Cost arithmetic and price lookup: cache reads and writes at their own prices, unknown prices never guessed. */
import { describe, expect, it } from "vitest"
import { costOf, costUsage, costedText, formatUsd, tokensText, usageByModel } from "../../../src/providers/cost.ts"
import { builtinPrice, priceLookup } from "../../../src/providers/pricing.ts"

const sonnet = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 }

describe("costOf", () => {
  it.each([
    ["plain input and output", { inputTokens: 1_000_000, outputTokens: 1_000_000 }, 18],
    ["cache reads at the cached price", { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 1_000_000 }, 0.3],
    ["cache writes at the write price", { inputTokens: 1_000_000, outputTokens: 0, cacheWriteTokens: 1_000_000 }, 3.75],
    // 600k uncached at 3 + 300k read at 0.3 + 100k written at 3.75 + 2k out at 15
    ["a mix", { inputTokens: 1_000_000, outputTokens: 2_000, cachedInputTokens: 300_000, cacheWriteTokens: 100_000 }, 1.8 + 0.09 + 0.375 + 0.03],
    ["reasoning is already part of output", { inputTokens: 0, outputTokens: 1_000, reasoningTokens: 800 }, 0.015],
    ["nothing", { inputTokens: 0, outputTokens: 0 }, 0]
  ])("%s", (_name, usage, usd) => {
    expect(costOf(usage, sonnet)).toBeCloseTo(usd, 10)
  })

  it("charges cache reads and writes at the input price when the price names none", () => {
    expect(costOf({ inputTokens: 2_000_000, outputTokens: 0, cachedInputTokens: 1_000_000, cacheWriteTokens: 500_000 }, { input: 2, output: 8 })).toBeCloseTo(4, 10)
  })
})

describe("costUsage", () => {
  const prices = priceLookup({ "local/priced": { input: 1, output: 2 } })

  it("adds the cost of each model at its own price", () => {
    const costed = costUsage(
      { "local/priced": { inputTokens: 1_000_000, outputTokens: 500_000 }, "anthropic/claude-sonnet-4-5": { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 1_000_000 } },
      prices
    )
    expect(costed.usd).toBeCloseTo(2 + 0.3, 10)
    expect(costed.usage).toEqual({ inputTokens: 2_000_000, outputTokens: 500_000, cachedInputTokens: 1_000_000 })
    expect(costed.unpriced).toEqual([])
  })

  it("has no cost when one model with usage has no price, and names it", () => {
    const costed = costUsage({ "local/priced": { inputTokens: 10, outputTokens: 10 }, "ollama/llama3": { inputTokens: 10, outputTokens: 1 } }, prices)
    expect(costed.usd).toBeUndefined()
    expect(costed.unpriced).toEqual(["ollama/llama3"])
    expect(costedText(costed)).toBe('20 in, 11 out · cost unknown (no price for ollama/llama3; set "pricing" in config.json)')
  })

  it("has no cost when the total holds usage no model accounts for (a session saved before usage was kept by model)", () => {
    const costed = costUsage({ "local/priced": { inputTokens: 10, outputTokens: 10 } }, prices, { inputTokens: 500, outputTokens: 40 })
    expect(costed.usd).toBeUndefined()
    expect(costed.unattributed).toBe(true)
    expect(costed.usage).toEqual({ inputTokens: 500, outputTokens: 40 })
  })

  it("sums a turn's messages by model", () => {
    expect(
      usageByModel([
        { model: "a/x", usage: { inputTokens: 1, outputTokens: 2 } },
        { model: "b/y" },
        { model: "a/x", usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 1 } }
      ])
    ).toEqual({ "a/x": { inputTokens: 4, outputTokens: 6, cachedInputTokens: 1 } })
  })
})

describe("prices", () => {
  it.each([
    ["anthropic", "claude-sonnet-4-5-20250929", 3],
    ["anthropic", "claude-opus-4-1", 15],
    ["anthropic", "claude-opus-4-5", 5],
    ["openai", "gpt-5", 1.25],
    ["openai", "gpt-5-mini-2025-08-07", 0.25],
    ["openai", "gpt-4o", 2.5],
    ["deepseek", "deepseek-reasoner", 0.28],
    ["gemini", "gemini-2.5-flash", 0.3]
  ])("knows %s/%s", (provider, id, input) => {
    expect(builtinPrice(provider, id)?.input).toBe(input)
  })

  it.each([
    ["openai", "gpt-4o-2024-05-13"],
    ["openai", "gpt-5-pro"],
    ["anthropic", "claude-sonnet-5-5"],
    ["gemini", "gemini-2.5-pro"],
    ["ollama", "llama3"],
    ["myproxy", "gpt-5"]
  ])("does not guess %s/%s", (provider, id) => {
    expect(builtinPrice(provider, id)).toBeUndefined()
  })

  it("takes config.json's price over the built-in one", () => {
    const prices = priceLookup({ "openai/gpt-5": { input: 9, output: 9 } })
    expect(prices("openai/gpt-5")).toEqual({ input: 9, output: 9 })
    expect(prices("openai/gpt-5-mini")?.input).toBe(0.25)
    expect(prices("nobody")).toBeUndefined()
  })
})

describe("text", () => {
  it("formats tokens and dollars", () => {
    expect(tokensText({ inputTokens: 12_345, outputTokens: 1_234, cachedInputTokens: 8_000, cacheWriteTokens: 300, reasoningTokens: 500 })).toBe(
      "12,345 in (8,000 cached, 300 cache writes), 1,234 out (500 reasoning)"
    )
    expect(formatUsd(0.00421)).toBe("$0.0042")
    expect(formatUsd(12.345)).toBe("$12.35")
  })
})
