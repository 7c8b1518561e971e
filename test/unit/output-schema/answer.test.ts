import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { ConfigError } from "../../../src/config/errors.ts"
import { checkAnswer } from "../../../src/output-schema/answer.ts"
import { loadAnswerSchema, type AnswerSchema } from "../../../src/output-schema/schema-file.ts"
import { tempDir } from "../../support/temp.ts"

const load = async (schema: unknown): Promise<AnswerSchema> => {
  const file = path.join(await tempDir("crystal-schema-"), "schema.json")
  await fsp.writeFile(file, JSON.stringify(schema))
  const loaded = await loadAnswerSchema(file)
  if (loaded instanceof ConfigError) throw new Error(loaded.message)
  return loaded
}

const person = { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false }

describe("the final answer read against --output-schema", () => {
  const cases: ReadonlyArray<readonly [string, string, unknown]> = [
    ["plain JSON", '{"name":"Ada"}', { _tag: "Valid", value: { name: "Ada" } }],
    ["JSON with blank lines around it", '\n  {"name": "Ada"}\n\n', { _tag: "Valid", value: { name: "Ada" } }],
    ["one json code fence around it", '```json\n{"name": "Ada"}\n```', { _tag: "Valid", value: { name: "Ada" } }],
    ["prose", "Here it is: Ada", { _tag: "Invalid", errors: [expect.stringMatching(/^the answer is not one JSON value/)] }],
    ["nothing", "  ", { _tag: "Invalid", errors: ["the answer is empty: one JSON value was expected"] }],
    ["two values", '{"name":"Ada"} {"name":"Bob"}', { _tag: "Invalid", errors: [expect.stringMatching(/^the answer is not one JSON value/)] }],
    ["a wrong type", '{"name": 1}', { _tag: "Invalid", errors: ["/name: must be string"] }],
    ["a missing and an extra property", '{"nick": "A"}', { _tag: "Invalid", errors: ["the answer: must have required property 'name'", "the answer: must NOT have additional properties (\"nick\")"] }]
  ]
  it.each(cases)("%s", async (_name, text, expected) => {
    expect(checkAnswer(await load(person), text)).toEqual(expected)
  })

  it("takes the draft a schema declares (2019-09, draft-07) and 2020-12 by default", async () => {
    for (const $schema of ["https://json-schema.org/draft/2019-09/schema", "http://json-schema.org/draft-07/schema#", undefined]) {
      const schema = await load({ ...($schema === undefined ? {} : { $schema }), type: "array", items: { type: "integer" } })
      expect(checkAnswer(schema, "[1, 2]")).toEqual({ _tag: "Valid", value: [1, 2] })
      expect(checkAnswer(schema, '[1, "x"]')).toEqual({ _tag: "Invalid", errors: ["/1: must be integer"] })
    }
  })

  it("a property name the model chose cannot break the error onto a second line (it is quoted, the line made one)", async () => {
    const closed = await load({ type: "object", properties: { n: { type: "integer" }, deep: { type: "object" } }, additionalProperties: false })
    const answer = checkAnswer(closed, JSON.stringify({ n: 1, "x\ncrystal: fake": 1, deep: { "y\r\ncrystal: also": { z: 1 } } }))
    expect(answer._tag).toBe("Invalid")
    const errors = answer._tag === "Invalid" ? answer.errors : []
    expect(errors).toEqual(["the answer: must NOT have additional properties (\"x\\ncrystal: fake\")"])
    for (const error of errors) expect(error).not.toMatch(/[\r\n\u2028\u2029]/)
    const nested = checkAnswer(await load({ type: "object", properties: { deep: { type: "object", additionalProperties: { type: "string" } } } }), JSON.stringify({ deep: { "a\ncrystal: fake": 1 } }))
    expect(nested).toEqual({ _tag: "Invalid", errors: ["/deep/a crystal: fake: must be string"] })
  })

  it.each([
    "https://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2019-09/schema#",
    "http://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#"
  ])("compiles a $schema written %s (a spelling of a draft it takes)", async ($schema) => {
    const schema = await load({ $schema, type: "array", items: { type: "integer" } })
    expect(checkAnswer(schema, '[1, "x"]')).toEqual({ _tag: "Invalid", errors: ["/1: must be integer"] })
    // What goes to the model is the operator's schema as written.
    expect(schema.schema["$schema"]).toBe($schema)
  })

  it("does not check formats (no format vocabulary is bundled): a declared format is no error", async () => {
    expect(checkAnswer(await load({ type: "string", format: "date-time" }), '"not a date"')._tag).toBe("Valid")
  })
})
