/**
 * A small builder for tool parameters: one declaration yields the compact JSON Schema the model
 * sees and the effect/Schema that validates what it sends back. Hand-sized on purpose: every
 * token of a tool definition is paid on every request. The effect/Schema side is built on first
 * use (a call's decoding), not when the definitions load at start-up.
 */
import * as Schema from "effect/Schema"

type Json = Readonly<Record<string, unknown>>

export interface Param<F extends Schema.Struct.Field> {
  readonly field: F
  readonly json: Json
  readonly required: boolean
}

/** A Param whose schema is made the first time something asks for it. */
const lazyParam = <F extends Schema.Struct.Field>(build: () => F, json: Json, required = true): Param<F> => {
  let field: F | undefined
  return {
    get field() {
      return (field ??= build())
    },
    json,
    required
  }
}

const describe = (description: string | undefined): Json => (description === undefined ? {} : { description })

export const string = (description?: string): Param<typeof Schema.String> =>
  lazyParam(() => Schema.String, { type: "string", ...describe(description) })

export const boolean = (description?: string): Param<typeof Schema.Boolean> =>
  lazyParam(() => Schema.Boolean, { type: "boolean", ...describe(description) })

export const integer = (
  description?: string,
  bounds: { readonly minimum?: number; readonly maximum?: number } = {}
): Param<Schema.Schema<number>> => {
  const build = (): Schema.Schema<number> => {
    let schema: Schema.Schema<number> = Schema.Int
    if (bounds.minimum !== undefined) schema = schema.pipe(Schema.greaterThanOrEqualTo(bounds.minimum))
    if (bounds.maximum !== undefined) schema = schema.pipe(Schema.lessThanOrEqualTo(bounds.maximum))
    return schema
  }
  return lazyParam(build, { type: "integer", ...describe(description), ...bounds })
}

export const literal = <const L extends ReadonlyArray<string>>(
  values: L,
  description?: string
): Param<Schema.Schema<L[number]>> =>
  lazyParam(() => Schema.Literal(...values) as unknown as Schema.Schema<L[number]>, { type: "string", enum: values, ...describe(description) })

export const array = <A>(items: Param<Schema.Schema<A>>, description?: string): Param<Schema.Schema<ReadonlyArray<A>>> =>
  lazyParam(() => Schema.Array(items.field), { type: "array", items: items.json, ...describe(description) })

export const optional = <A>(param: Param<Schema.Schema<A>>): Param<Schema.optional<Schema.Schema<A>>> =>
  lazyParam(() => Schema.optional(param.field), param.json, false)

export interface ObjectParams<F extends Schema.Struct.Fields> {
  readonly schema: Schema.Struct<F>
  readonly json: Json
  /**
   * Set for a JSON Schema someone else wrote (an external or MCP tool): the arguments are checked
   * by this function (undefined when they fit, else what is wrong, for the model) and passed to
   * the tool whole instead of being decoded by `schema`.
   */
  readonly check?: ((input: unknown) => string | undefined) | undefined
}

/** Parameters described by a foreign JSON Schema; `check` validates a call's arguments (see ObjectParams). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no Schema fields: the arguments are checked against a foreign JSON Schema
export const foreignSchema = (json: Json, check: (input: unknown) => string | undefined): ObjectParams<{}> => ({
  schema: Schema.Struct({}),
  json,
  check
})

export const object = <P extends Record<string, Param<Schema.Struct.Field>>>(
  params: P
): ObjectParams<{ readonly [K in keyof P]: P[K]["field"] }> => {
  const properties: Record<string, Json> = {}
  const required: Array<string> = []
  for (const [name, param] of Object.entries(params)) {
    properties[name] = param.json
    if (param.required) required.push(name)
  }
  let schema: Schema.Struct<{ readonly [K in keyof P]: P[K]["field"] }> | undefined
  return {
    get schema() {
      if (schema === undefined) {
        const fields: Record<string, Schema.Struct.Field> = {}
        for (const [name, param] of Object.entries(params)) fields[name] = param.field
        schema = Schema.Struct(fields) as unknown as Schema.Struct<{ readonly [K in keyof P]: P[K]["field"] }>
      }
      return schema
    },
    json: { type: "object", properties, required, additionalProperties: false }
  }
}

/** An object nested inside the arguments (an array item, for example). */
export const nested = <P extends Record<string, Param<Schema.Struct.Field>>>(
  params: P,
  description?: string
): Param<Schema.Struct<{ readonly [K in keyof P]: P[K]["field"] }>> => {
  const built = object(params)
  return lazyParam(() => built.schema, { ...built.json, ...describe(description) })
}
