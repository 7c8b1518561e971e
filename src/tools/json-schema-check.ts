/**
 * A hand-written subset of JSON Schema for the parameters of tools someone else wrote (external
 * tool sets, MCP servers): type, properties, required, additionalProperties, enum, const, items,
 * minimum/maximum, minLength/maxLength, minItems/maxItems, anyOf/oneOf. Unknown keywords are
 * ignored, so a schema using more than this subset is checked less strictly, never refused.
 *
 * `checkJsonSchema(schema, value)` gives undefined when the value fits, else one message per
 * problem path, e.g. `path: expected a string`; `jsonSchemaChecker(schema)` is the function
 * `foreignSchema` takes. `objectSchemaProblem(schema)` says what keeps a schema from being a
 * tool's parameters (they must be an object schema), for load-time notes.
 */
import { jsonPreview } from "../text/clip.ts"

type Json = Readonly<Record<string, unknown>>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const typeOf = (value: unknown): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number"
  return typeof value
}

const article = (type: string): string => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`)

const fitsType = (type: string, value: unknown): boolean => {
  const actual = typeOf(value)
  if (type === "number") return actual === "number" || actual === "integer"
  return actual === type
}

const describeValue = (value: unknown): string => jsonPreview(value, 40)

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

const at = (where: string, key: string | number): string =>
  typeof key === "number" ? `${where}[${key}]` : where === "" ? key : `${where}.${key}`

const label = (where: string): string => (where === "" ? "arguments" : where)

const problemsOf = (schema: unknown, value: unknown, where: string, out: Array<string>): void => {
  if (schema === false) {
    out.push(`${label(where)}: not allowed`)
    return
  }
  if (!isObject(schema)) return
  const before = out.length

  const type = schema["type"]
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === "string") : []
  if (types.length > 0 && !types.some((entry) => fitsType(entry, value))) {
    out.push(`${label(where)}: expected ${types.map(article).join(" or ")}, got ${article(typeOf(value))}`)
    return
  }

  if ("const" in schema && !sameJson(schema["const"], value)) out.push(`${label(where)}: expected ${describeValue(schema["const"])}`)
  const choices = schema["enum"]
  if (Array.isArray(choices) && !choices.some((choice) => sameJson(choice, value))) {
    out.push(`${label(where)}: expected one of ${choices.map(describeValue).join(", ")}, got ${describeValue(value)}`)
  }

  if (typeof value === "number") {
    const minimum = schema["minimum"]
    const maximum = schema["maximum"]
    if (typeof minimum === "number" && value < minimum) out.push(`${label(where)}: expected at least ${minimum}, got ${value}`)
    if (typeof maximum === "number" && value > maximum) out.push(`${label(where)}: expected at most ${maximum}, got ${value}`)
  }
  if (typeof value === "string") {
    const length = [...value].length
    const minLength = schema["minLength"]
    const maxLength = schema["maxLength"]
    if (typeof minLength === "number" && length < minLength) out.push(`${label(where)}: expected at least ${minLength} characters, got ${length}`)
    if (typeof maxLength === "number" && length > maxLength) out.push(`${label(where)}: expected at most ${maxLength} characters, got ${length}`)
  }
  if (Array.isArray(value)) {
    const minItems = schema["minItems"]
    const maxItems = schema["maxItems"]
    if (typeof minItems === "number" && value.length < minItems) out.push(`${label(where)}: expected at least ${minItems} items, got ${value.length}`)
    if (typeof maxItems === "number" && value.length > maxItems) out.push(`${label(where)}: expected at most ${maxItems} items, got ${value.length}`)
    const items = schema["items"]
    if (isObject(items) || typeof items === "boolean") value.forEach((item, index) => problemsOf(items, item, at(where, index), out))
  }
  if (isObject(value)) {
    const properties = isObject(schema["properties"]) ? schema["properties"] : {}
    const required = Array.isArray(schema["required"]) ? schema["required"] : []
    for (const name of required) {
      if (typeof name === "string" && !(name in value)) out.push(`${label(at(where, name))}: required`)
    }
    const additional = schema["additionalProperties"]
    for (const [name, item] of Object.entries(value)) {
      if (name in properties) problemsOf(properties[name], item, at(where, name), out)
      else if (additional === false) out.push(`${label(at(where, name))}: unknown property (expected ${Object.keys(properties).join(", ") || "none"})`)
      else if (isObject(additional)) problemsOf(additional, item, at(where, name), out)
    }
  }

  const anyOf = schema["anyOf"]
  if (Array.isArray(anyOf) && anyOf.length > 0 && !anyOf.some((option) => checkJsonSchemaAt(option, value, where) === undefined)) {
    out.push(`${label(where)}: matches none of the ${anyOf.length} allowed forms (${firstProblem(anyOf[0], value, where)})`)
  }
  const oneOf = schema["oneOf"]
  if (Array.isArray(oneOf) && oneOf.length > 0) {
    const matching = oneOf.filter((option) => checkJsonSchemaAt(option, value, where) === undefined).length
    if (matching === 0) out.push(`${label(where)}: matches none of the ${oneOf.length} allowed forms (${firstProblem(oneOf[0], value, where)})`)
    else if (matching > 1) out.push(`${label(where)}: matches ${matching} of the allowed forms; exactly one must match`)
  }
  const allOf = schema["allOf"]
  if (Array.isArray(allOf) && out.length === before) for (const part of allOf) problemsOf(part, value, where, out)
}

const checkJsonSchemaAt = (schema: unknown, value: unknown, where: string): ReadonlyArray<string> | undefined => {
  const out: Array<string> = []
  problemsOf(schema, value, where, out)
  return out.length === 0 ? undefined : out
}

const firstProblem = (schema: unknown, value: unknown, where: string): string => checkJsonSchemaAt(schema, value, where)?.[0] ?? "?"

/** Every problem of `value` against `schema`, or undefined when it fits. */
export const checkJsonSchema = (schema: unknown, value: unknown): ReadonlyArray<string> | undefined => checkJsonSchemaAt(schema, value, "")

/** The check `foreignSchema` takes: undefined when the arguments fit, else what is wrong, for the model. */
export const jsonSchemaChecker =
  (schema: Json) =>
  (input: unknown): string | undefined =>
    checkJsonSchema(schema, input)?.join("; ")

const schemaTypes = ["string", "number", "integer", "boolean", "object", "array", "null"]

/**
 * Why `schema` cannot be a tool's parameters, or undefined: it must be an object with
 * `"type": "object"`, its `properties` an object of schemas, `required` a list of names, and every
 * `type` it uses one JSON Schema knows.
 */
export const objectSchemaProblem = (schema: unknown): string | undefined => {
  if (!isObject(schema)) return "expected a JSON Schema object"
  if (schema["type"] !== "object") return `expected "type": "object" (got ${describeValue(schema["type"])})`
  return schemaProblem(schema, "")
}

const schemaProblem = (schema: unknown, where: string): string | undefined => {
  if (typeof schema === "boolean") return undefined
  if (!isObject(schema)) return `${where === "" ? "" : `${where}: `}expected a schema object`
  const prefix = where === "" ? "" : `${where}.`
  const type = schema["type"]
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : type === undefined ? [] : [type]
  const unknown = types.find((entry) => typeof entry !== "string" || !schemaTypes.includes(entry))
  if (unknown !== undefined) return `${prefix}type: unknown type ${describeValue(unknown)} (expected one of ${schemaTypes.join(", ")})`
  const properties = schema["properties"]
  if (properties !== undefined) {
    if (!isObject(properties)) return `${prefix}properties: expected an object of schemas`
    for (const [name, property] of Object.entries(properties)) {
      const problem = schemaProblem(property, `${prefix}properties.${name}`)
      if (problem !== undefined) return problem
    }
  }
  const required = schema["required"]
  if (required !== undefined && (!Array.isArray(required) || required.some((name) => typeof name !== "string"))) {
    return `${prefix}required: expected a list of property names`
  }
  const items = schema["items"]
  if (items !== undefined) return schemaProblem(items, `${prefix}items`)
  return undefined
}
