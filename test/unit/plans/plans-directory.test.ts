import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { parseConfigText } from "../../../src/config/load.ts"
import { plansDirectoryProblem } from "../../../src/config/schema.ts"

const file = "/home/u/.crystal/config.json"

describe("plans.directory", () => {
  it.each([".crystal/plans", "plans", "docs/plans/", "a/../b", "."])("accepts %s (inside the workspace)", (directory) => {
    expect(plansDirectoryProblem(directory)).toBeUndefined()
    expect(Either.isRight(parseConfigText(file, JSON.stringify({ plans: { directory } })))).toBe(true)
  })

  it.each([
    ["..", /plans\.directory: "\.\." leads outside the workspace; expected a folder inside the workspace/],
    ["../plans", /leads outside the workspace/],
    ["a/../../plans", /leads outside the workspace/],
    ["..\\plans", /leads outside the workspace/],
    ["/tmp/plans", /"\/tmp\/plans" is not relative to the workspace/],
    ["~/plans", /is not relative to the workspace/],
    ["C:/plans", /is not relative to the workspace/],
    ["  ", /got an empty path/]
  ])("refuses %s at load with one line naming the field", (directory, pattern) => {
    const result = parseConfigText(file, JSON.stringify({ plans: { directory } }))
    expect(Either.isLeft(result)).toBe(true)
    const message = Either.isLeft(result) ? result.left.message : ""
    expect(message).toMatch(pattern)
    expect(message.startsWith(`${file}: plans.directory: `)).toBe(true)
    expect(message).not.toContain("\n")
  })

  it("refuses an unknown key and a value that is not an object", () => {
    const left = (text: string) => {
      const result = parseConfigText(file, text)
      return Either.isLeft(result) ? result.left.message : "accepted"
    }
    expect(left('{"plans": {"dir": "x"}}')).toMatch(/plans\.dir: is unexpected/)
    expect(left('{"plans": 3}')).toMatch(/plans: expected an object like \{"directory": ".crystal\/plans"\}, got 3$/)
  })
})
