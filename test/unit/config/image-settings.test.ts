/** config.json's image settings: per-model image limits and imageModel, each refused in one line naming the field. */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { parseConfigText } from "../../../src/config/load.ts"

const file = "/home/u/.crystal/config.json"
const model = (settings: Record<string, unknown>) => JSON.stringify({ providers: { local: { models: { m: settings } } } })

const errorOf = (text: string): string => {
  const result = parseConfigText(file, text)
  if (Either.isRight(result)) throw new Error("expected a failure")
  return result.left.message
}

describe("image settings in config.json", () => {
  it("accepts image limits per model and an imageModel", () => {
    const parsed = parseConfigText(file, JSON.stringify({ ...JSON.parse(model({ maxImageBytes: 5_242_880, maxImagePixels: 1568 })), imageModel: "anthropic/claude-sonnet-5-5" }))
    expect(Either.isRight(parsed) && parsed.right.config.providers?.["local"]?.models?.["m"]).toEqual({ maxImageBytes: 5_242_880, maxImagePixels: 1568 })
    expect(Either.isRight(parsed) && parsed.right.config.imageModel).toBe("anthropic/claude-sonnet-5-5")
  })

  it.each([
    [model({ maxImageBytes: 30_000_000 }), "providers.local.models.m.maxImageBytes: a whole number of bytes from 1024 to 20971520 (the 20 MiB image cap), e.g. 5242880"],
    [model({ maxImageBytes: 1.5 }), "providers.local.models.m.maxImageBytes: a whole number of bytes from 1024 to 20971520 (the 20 MiB image cap), e.g. 5242880"],
    [model({ maxImageBytes: "5MB" }), "providers.local.models.m.maxImageBytes: expected number, got \"5MB\""],
    [model({ maxImagePixels: 10 }), "providers.local.models.m.maxImagePixels: a whole number of pixels per side from 64 to 100000, e.g. 1568"],
    ['{"imageModel": "gpt-5.4"}', 'imageModel: expected PROVIDER/MODEL (e.g. "openai/gpt-5.4"), got "gpt-5.4"'],
    ['{"imageModel": 7}', "imageModel: expected string, got 7"]
  ])("refuses %s in one line", (text, expected) => {
    expect(errorOf(text)).toBe(`${file}: ${expected}`)
  })
})
