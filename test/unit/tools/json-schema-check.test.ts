import { describe, expect, it } from "vitest"
import { checkJsonSchema, jsonSchemaChecker, objectSchemaProblem } from "../../../src/tools/json-schema-check.ts"

const schema = {
  type: "object",
  properties: {
    path: { type: "string", minLength: 1, maxLength: 5 },
    count: { type: "integer", minimum: 1, maximum: 10 },
    ratio: { type: "number" },
    mode: { enum: ["fast", "slow"] },
    fixed: { const: 3 },
    tags: { type: "array", items: { type: "string" }, maxItems: 2 },
    nested: { type: "object", properties: { on: { type: "boolean" } }, required: ["on"], additionalProperties: false },
    either: { anyOf: [{ type: "string" }, { type: "integer" }] },
    one: { oneOf: [{ type: "integer" }, { type: "number", minimum: 0 }] },
    maybe: { type: ["string", "null"] },
    fancy: { type: "string", format: "uri", pattern: "^x" }
  },
  required: ["path"],
  additionalProperties: false
}

const cases: Array<[unknown, ReadonlyArray<string> | undefined]> = [
  [{ path: "a" }, undefined],
  [{ path: "a", count: 3, ratio: 1, mode: "fast", fixed: 3, tags: ["x"], nested: { on: true }, either: 2, one: 1.5, maybe: null, fancy: "anything" }, undefined],
  [{}, ["path: required"]],
  [{ path: 1 }, ["path: expected a string, got an integer"]],
  [{ path: "" }, ["path: expected at least 1 characters, got 0"]],
  [{ path: "toolong" }, ["path: expected at most 5 characters, got 7"]],
  [{ path: "a", count: 1.5 }, ["count: expected an integer, got a number"]],
  [{ path: "a", count: 11 }, ["count: expected at most 10, got 11"]],
  [{ path: "a", count: 0 }, ["count: expected at least 1, got 0"]],
  [{ path: "a", ratio: "1" }, ["ratio: expected a number, got a string"]],
  [{ path: "a", mode: "medium" }, ['mode: expected one of "fast", "slow", got "medium"']],
  [{ path: "a", fixed: 4 }, ["fixed: expected 3"]],
  [{ path: "a", tags: ["x", 2] }, ["tags[1]: expected a string, got an integer"]],
  [{ path: "a", tags: ["x", "y", "z"] }, ["tags: expected at most 2 items, got 3"]],
  [{ path: "a", nested: { extra: 1 } }, ["nested.on: required", "nested.extra: unknown property (expected on)"]],
  [{ path: "a", either: true }, ["either: matches none of the 2 allowed forms (either: expected a string, got a boolean)"]],
  [{ path: "a", one: 2 }, ["one: matches 2 of the allowed forms; exactly one must match"]],
  [{ path: "a", maybe: 1 }, ["maybe: expected a string or a null, got an integer"]],
  [{ path: "a", other: 1 }, ["other: unknown property (expected path, count, ratio, mode, fixed, tags, nested, either, one, maybe, fancy)"]],
  [[], ["arguments: expected an object, got an array"]]
]

describe("the JSON Schema subset checker", () => {
  for (const [value, expected] of cases) {
    it(`${JSON.stringify(value)} → ${expected === undefined ? "fits" : expected.join("; ")}`, () => {
      expect(checkJsonSchema(schema, value)).toEqual(expected)
    })
  }

  it("gives foreignSchema one message for the model", () => {
    expect(jsonSchemaChecker(schema)({ path: 1, count: 0 })).toBe("path: expected a string, got an integer; count: expected at least 1, got 0")
    expect(jsonSchemaChecker({ type: "object" })({ anything: [1] })).toBeUndefined()
  })

  it("says what keeps a schema from being a tool's parameters", () => {
    expect(objectSchemaProblem({ type: "object", properties: { a: { type: "string" } } })).toBeUndefined()
    expect(objectSchemaProblem([])).toBe("expected a JSON Schema object")
    expect(objectSchemaProblem({ type: "string" })).toBe('expected "type": "object" (got "string")')
    expect(objectSchemaProblem({ type: "object", properties: [] })).toBe("properties: expected an object of schemas")
    expect(objectSchemaProblem({ type: "object", properties: { a: { type: "text" } } })).toBe(
      'properties.a.type: unknown type "text" (expected one of string, number, integer, boolean, object, array, null)'
    )
    expect(objectSchemaProblem({ type: "object", required: "a" })).toBe("required: expected a list of property names")
  })
})
