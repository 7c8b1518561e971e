import { describe, expect, it } from "vitest"
import { jsonTextTooDeep, valueTooDeep } from "../../../src/files/json-depth.ts"
import { argumentsProblem, boundToolArguments, maxArgumentDepth, parseToolArguments, tooDeepArguments } from "../../../src/providers/tool-arguments.ts"

const nested = (depth: number): unknown => {
  let value: unknown = 1
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value }
  return value
}

const arrays = (depth: number): string => `${"[".repeat(depth)}${"]".repeat(depth)}`

describe("JSON depth, without recursion", () => {
  it.each([
    ["{}", 1, false],
    ["{}", 0, true],
    [arrays(64), 64, false],
    [arrays(65), 64, true],
    [arrays(100_000), 64, true],
    [`{"a":"${"[".repeat(1_000)}"}`, 1, false],
    [`{"a":"\\"[[[["}`, 1, false],
    [`{"a":"\\\\", "b": [[1]]}`, 2, true],
    [`${"[".repeat(70)}`, 64, true],
    ["42", 0, false],
    ['"[[["', 0, false]
  ] as const)("%#: within %i levels → too deep: %s", (text, limit, expected) => {
    expect(jsonTextTooDeep(text, limit)).toBe(expected)
  })

  it.each([
    [0, 0, false],
    [1, 0, true],
    [64, 64, false],
    [65, 64, true],
    [200_000, 64, true]
  ] as const)("a value nested %i deep within %i levels → too deep: %s", (depth, limit, expected) => {
    expect(valueTooDeep(nested(depth), limit)).toBe(expected)
  })

  it("counts arrays and objects alike, wherever they sit", () => {
    expect(valueTooDeep({ a: 1, b: [1, 2, { c: "x" }] }, 3)).toBe(false)
    expect(valueTooDeep({ a: 1, b: [1, 2, { c: "x" }] }, 2)).toBe(true)
  })
})

describe("tool arguments from the model", () => {
  it.each([
    ["", {}],
    ["  ", {}],
    ['{"path":"a"}', { path: "a" }],
    ["{path: a}", "{path: a}"],
    [`{"path":${arrays(64)}}`, tooDeepArguments],
    [`{"path":${arrays(63)}}`, { path: JSON.parse(arrays(63)) as unknown }],
    [`{"path":${"[".repeat(50_000)}`, tooDeepArguments]
  ] as const)("%#: is parsed to %j", (raw, expected) => {
    expect(parseToolArguments(raw)).toEqual(expected)
  })

  it("keeps parsed arguments within the limit and replaces deeper ones", () => {
    const ok = { path: "a", edits: [{ old: "x", new: "y" }] }
    expect(boundToolArguments(ok)).toBe(ok)
    expect(boundToolArguments(nested(maxArgumentDepth + 1))).toBe(tooDeepArguments)
    expect(boundToolArguments(nested(100_000))).toBe(tooDeepArguments)
  })

  it.each([
    [{ path: "a" }, undefined],
    [tooDeepArguments, "read: the arguments nest deeper than 64 levels; send one JSON object matching the tool's schema"],
    [arrays(100), "read: the arguments nest deeper than 64 levels; send one JSON object matching the tool's schema"],
    ["{path: a}", "read: the arguments were not valid JSON; send one JSON object matching the tool's schema"]
  ] as const)("%#: the model is told %j", (args, told) => {
    expect(argumentsProblem("read", args)).toBe(told)
  })

  it("a parsed value nested past the limit is refused too", () => {
    expect(argumentsProblem("read", nested(100_000))).toBe("read: the arguments nest deeper than 64 levels; send one JSON object matching the tool's schema")
  })

  it("the marker is not JSON, so no encoder takes it for an object", () => {
    expect(() => JSON.parse(tooDeepArguments) as unknown).toThrow()
  })
})
