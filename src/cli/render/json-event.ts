/**
 * Every line `crystal run --format json` writes goes through here: one event, made inert (text
 * from outside in it cannot drive a terminal it is read on), the first of the process carrying the
 * contract's version. The events are a public interface: docs/json-events.md and
 * schema/json-events.schema.json describe them; fields may be added, never renamed or removed.
 */
import { inertJson } from "../../terminal/inert.ts"
import { writeStdout } from "../../terminal/output.ts"

/** The version of the event contract, on the first event of every stream. */
export const jsonEventsVersion = 1

/** One event: its `type`, then its fields. */
export type JsonEvent = { readonly type: string } & Record<string, unknown>

/** A stream's lines: each event as its line, `version` after `type` on the first one only. */
export const makeJsonEventLines = (): ((event: JsonEvent) => string) => {
  let versionSent = false
  return (event) => {
    const first = !versionSent
    versionSent = true
    const { type, ...fields } = event
    return `${inertJson(first ? { type, version: jsonEventsVersion, ...fields } : event)}\n`
  }
}

/** The process's one stream (stdout). */
export const jsonEventLine = makeJsonEventLines()

export const writeJsonEvent = (event: JsonEvent): void => writeStdout(jsonEventLine(event))
