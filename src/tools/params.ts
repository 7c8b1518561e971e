/**
 * A small builder for tool parameters: one declaration yields the compact JSON Schema the model
 * sees and the effect/Schema that validates what it sends back. Hand-sized on purpose: every
 * token of a tool definition is paid on every request.
 */
import * as Schema from "effect/Schema"

type Json = Readonly<Record<string, unknown>>

export interface Param<F extends Schema.Struct.Field> {
  readonly field: F
  readonly json: Json
  readonly required: boolean
}

const describe = (description: string | undefined): Json => (description === undefined ? {} : { description })

export const string = (description?: string): Param<typeof Schema.String> => ({
  field: Schema.String,
  json: { type: "string", ...describe(description) },
  required: true
})

export const boolean = (description?: string): Param<typeof Schema.Boolean> => ({
  field: Schema.Boolean,
  json: { type: "boolean", ...describe(description) },
  required: true
})

export const integer = (
  description?: string,
  bounds: { readonly minimum?: number; readonly maximum?: number } = {}
): Param<Schema.Schema<number>> => {
  let schema: Schema.Schema<number> = Schema.Int
  if (bounds.minimum !== undefined) schema = schema.pipe(Schema.greaterThanOrEqualTo(bounds.minimum))
  if (bounds.maximum !== undefined) schema = schema.pipe(Schema.lessThanOrEqualTo(bounds.maximum))
  return { field: schema, json: { type: "integer", ...describe(description), ...bounds }, required: true }
}

export const literal = <const L extends ReadonlyArray<string>>(
  values: L,
  description?: string
): Param<Schema.Schema<L[number]>> => ({
  field: Schema.Literal(...values) as unknown as Schema.Schema<L[number]>,
  json: { type: "string", enum: values, ...describe(description) },
  required: true
})

export const array = <A>(items: Param<Schema.Schema<A>>, description?: string): Param<Schema.Schema<ReadonlyArray<A>>> => ({
  field: Schema.Array(items.field),
  json: { type: "array", items: items.json, ...describe(description) },
  required: true
})

export const optional = <A>(param: Param<Schema.Schema<A>>): Param<Schema.optional<Schema.Schema<A>>> => ({
  field: Schema.optional(param.field),
  json: param.json,
  required: false
})

export interface ObjectParams<F extends Schema.Struct.Fields> {
  readonly schema: Schema.Struct<F>
  readonly json: Json
}

export const object = <P extends Record<string, Param<Schema.Struct.Field>>>(
  params: P
): ObjectParams<{ readonly [K in keyof P]: P[K]["field"] }> => {
  const fields: Record<string, Schema.Struct.Field> = {}
  const properties: Record<string, Json> = {}
  const required: Array<string> = []
  for (const [name, param] of Object.entries(params)) {
    fields[name] = param.field
    properties[name] = param.json
    if (param.required) required.push(name)
  }
  return {
    schema: Schema.Struct(fields) as unknown as Schema.Struct<{ readonly [K in keyof P]: P[K]["field"] }>,
    json: { type: "object", properties, required, additionalProperties: false }
  }
}

/** An object nested inside the arguments (an array item, for example). */
export const nested = <P extends Record<string, Param<Schema.Struct.Field>>>(
  params: P,
  description?: string
): Param<Schema.Struct<{ readonly [K in keyof P]: P[K]["field"] }>> => {
  const built = object(params)
  return { field: built.schema, json: { ...built.json, ...describe(description) }, required: true }
}
