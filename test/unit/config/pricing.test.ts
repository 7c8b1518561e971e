/** config.json `pricing`: prices by PROVIDER/MODEL, each mistake refused in one line naming the field. */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { parseConfigText } from "../../../src/config/load.ts"

const file = "/home/u/.crystal/config.json"

const errorOf = (text: string): string => {
  const result = parseConfigText(file, text)
  if (Either.isRight(result)) throw new Error("expected a failure")
  return result.left.message
}

describe("pricing in config.json", () => {
  it("accepts prices by PROVIDER/MODEL", () => {
    const pricing = { "local/qwen": { input: 0, output: 0 }, "anthropic/claude-sonnet-5-5": { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 } }
    const parsed = parseConfigText(file, JSON.stringify({ pricing }))
    expect(Either.isRight(parsed) && parsed.right.config.pricing).toEqual(pricing)
  })

  it.each([
    ['{"pricing": {"local/m": {"input": -1, "output": 2}}}', "pricing.local/m.input: US dollars per million tokens, 0 or more (e.g. 3)"],
    ['{"pricing": {"local/m": {"input": "3", "output": 2}}}', 'pricing.local/m.input: expected number, got "3"'],
    ['{"pricing": {"local/m": {"input": 3}}}', "pricing.local/m.output: is missing"],
    ['{"pricing": {"local/m": {"input": 3, "output": 2, "cached": 1}}}', "pricing.local/m.cached: is unexpected"],
    ['{"pricing": {"gpt-5": {"input": 3, "output": 2}}}', 'pricing: "gpt-5" is not PROVIDER/MODEL (e.g. "openai/gpt-5.4")'],
    ['{"pricing": 3}', "pricing: expected an object of prices by PROVIDER/MODEL"]
  ])("refuses %s in one line", (text, expected) => {
    const message = errorOf(text)
    expect(message.split("\n")).toHaveLength(1)
    expect(message).toContain(`${file}: ${expected}`)
  })
})
