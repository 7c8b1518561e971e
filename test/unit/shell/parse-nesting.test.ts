/**
 * Deeply nested arithmetic is parsed in time proportional to its size: each `$((` is tried once,
 * not once per enclosing level (the suite's timeout fails a parser that doubles work per level).
 */
import { describe, expect, it } from "vitest"
import { parseShell } from "../../../src/shell/parse.ts"
import { classifyForTest } from "../bash/support.ts"
import * as Effect from "effect/Effect"

const nested = (levels: number) => `echo ${"$((".repeat(levels)}1${"))".repeat(levels)}`

describe("nested arithmetic", () => {
  it("parses 300 levels of $(( … )) (when every level was tried twice, 30 did not finish)", () => {
    expect(parseShell(nested(300)).items).toHaveLength(1)
  })

  it("classifies such a line (a model could send one) without stalling the call", async () => {
    const classification = await Effect.runPromise(classifyForTest(nested(60)))
    expect(classification.authority).toBeDefined()
  })
})
