/**
 * The `--format json` contract, checked in tests: every event against schema/json-events.schema.json
 * closed (no field the schema does not name, so a new event type or field without its schema entry
 * fails), and `version` on the first event of a stream only.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import Ajv2020Module from "ajv/dist/2020.js"

export const jsonEventsSchemaFile = path.resolve(import.meta.dirname, "..", "..", "schema", "json-events.schema.json")

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** The published schema (open: consumers ignore fields they do not know), as written. */
export const jsonEventsSchema = JSON.parse(fs.readFileSync(jsonEventsSchemaFile, "utf8")) as Record<string, unknown> & { $defs: Record<string, unknown> }

/** The event types the schema has an entry for. */
export const eventTypes = (): ReadonlyArray<string> =>
  Object.values(jsonEventsSchema.$defs).flatMap((def) => {
    const type = isRecord(def) && isRecord(def["properties"]) && isRecord(def["properties"]["type"]) ? def["properties"]["type"]["const"] : undefined
    return typeof type === "string" ? [type] : []
  })

/** Every object with `properties` closed to them. */
const closed = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(closed)
  if (!isRecord(value)) return value
  const copy = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, closed(inner)]))
  return "properties" in copy && copy["type"] === "object" ? { ...copy, additionalProperties: false } : copy
}

const ajv = new Ajv2020Module.default({ allErrors: true, strict: true })
// The root names only `type` and defers to the events (oneOf): it stays open, the events are closed.
ajv.addSchema({ ...jsonEventsSchema, $defs: closed(jsonEventsSchema.$defs) } as object, "events")
const whole = ajv.getSchema("events")

const problemsOf = (errors: typeof ajv.errors): string =>
  (errors ?? []).map((error) => `${error.instancePath || "(event)"} ${error.message ?? error.keyword}${error.keyword === "additionalProperties" ? ` (${String(error.params["additionalProperty"])})` : ""}`).join("; ")

/** Throws naming the event and what is wrong when one event of a stream breaks the contract. */
export const checkJsonEvents = (events: ReadonlyArray<Record<string, unknown>>): void => {
  events.forEach((event, index) => {
    const where = `--format json event ${index + 1} ${JSON.stringify(event).slice(0, 300)}`
    const type = event["type"]
    if (typeof type !== "string" || !eventTypes().includes(type)) throw new Error(`${where}: type ${JSON.stringify(type)} has no entry in ${jsonEventsSchemaFile}`)
    const validate = ajv.getSchema(`events#/$defs/${type}`)
    if (validate === undefined || whole === undefined) throw new Error(`${jsonEventsSchemaFile} did not compile`)
    if (!validate(event)) throw new Error(`${where} does not match ${jsonEventsSchemaFile}: ${problemsOf(validate.errors)}`)
    if (!whole(event)) throw new Error(`${where} does not match ${jsonEventsSchemaFile} as a whole: ${problemsOf(whole.errors)}`)
    if (index === 0 && event["version"] !== 1) throw new Error(`${where}: the first event must carry "version": 1`)
    if (index > 0 && "version" in event) throw new Error(`${where}: only the first event carries "version"`)
  })
}
