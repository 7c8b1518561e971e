/**
 * The `--format json` contract: every event the JSON renderer can write, as written, matches
 * schema/json-events.schema.json closed (test/support/json-events.ts), the checker refuses what
 * the contract does not describe, and docs/json-events.md names every type and field of the schema.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { makeJsonEventLines, type JsonEvent } from "../../../src/cli/render/json-event.ts"
import { makeJsonRenderer } from "../../../src/cli/render/json.ts"
import type { Classification } from "../../../src/approval/classification.ts"
import { checkJsonEvents, eventTypes, jsonEventsSchema } from "../../support/json-events.ts"

const classification = { risk: "low", authority: "read", scope: "workspace", summary: "read src/a.ts", paths: [] } as unknown as Classification
const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 2, cacheWriteTokens: 1, reasoningTokens: 3 }

/** One of every event the JSON renderer writes, each from the renderer itself, in a plausible order. */
const rendererEvents = (): ReadonlyArray<JsonEvent> => {
  const events: Array<JsonEvent> = []
  const view = makeJsonRenderer((event) => events.push(event))
  Effect.runSync(
    Effect.all([
      view.sessionStarted({ id: "20261203-0001", model: "local/m", workspace: "/w", resumed: false }),
      view.assistantMessage({ _tag: "assistant", id: "i1", model: "local/m", text: "looking", reasoning: [{ text: "think" }] }),
      view.toolStarted({ id: "c1", name: "read", arguments: { path: "a.ts" } }),
      view.approval({ callId: "c1", toolName: "read", outcome: "allowed", by: "policy", approvalMode: "default", classification }),
      view.toolProgress({ callId: "c1", toolName: "read", progress: 1, total: 2, message: "half" }),
      view.toolProgress({ callId: "c1", toolName: "read" }),
      view.toolFinished({ _tag: "tool_result", id: "i2", callId: "c1", name: "read", text: "x", isError: false }, 12),
      view.retrying({ attempt: 1, maxAttempts: 5, delayMs: 1000, reason: "rate limited" }),
      view.note("a note"),
      view.filesChanged?.({ turn: 2, files: [{ path: "a.ts", kind: "modified", added: 3, removed: 1, binary: false }, { path: "b.png", kind: "added", added: 0, removed: 0, binary: true }] }) ?? Effect.void,
      view.finished({ sessionId: "20261203-0001", usage, usd: 0.01, session: { usage, usd: 0.02, unpriced: [], unattributed: false }, output: [1, { a: null }] }),
      view.finished({ sessionId: "20261203-0001", usage: { inputTokens: 1, outputTokens: 1 }, usd: undefined, session: { usage, usd: undefined, unpriced: ["local/m"], unattributed: false } }),
      view.failed("it broke")
    ])
  )
  return events
}

/** The stream as written: each event through a fresh stream's line writer (which adds `version`), read back. */
const asWritten = (events: ReadonlyArray<JsonEvent>): ReadonlyArray<Record<string, unknown>> => {
  const line = makeJsonEventLines()
  return events.map((event) => JSON.parse(line(event)) as Record<string, unknown>)
}

/**
 * The event types no renderer method writes, and the code that does (its events are checked
 * against the schema in the e2e test named, as every event runCrystal reads is).
 */
const writtenElsewhere: Record<string, { readonly file: string; readonly e2e: string }> = {
  plan: { file: "src/cli/render/plan-output.ts", e2e: "test/e2e/plan-compaction.test.ts" }
}

const repoFile = (file: string): string => fs.readFileSync(path.resolve(import.meta.dirname, "..", "..", "..", file), "utf8")

describe("the JSON event contract", () => {
  it("every event the renderer writes, as written, matches the schema", () => {
    expect(() => checkJsonEvents(asWritten(rendererEvents()))).not.toThrow()
  })

  it("every type of the schema is written: by the renderer, or by the one other path named for it", () => {
    const rendered = new Set(rendererEvents().map((event) => event.type))
    for (const [type, { file, e2e }] of Object.entries(writtenElsewhere)) {
      expect(rendered.has(type), `${type} is written by the renderer, not only ${file}`).toBe(false)
      expect(repoFile(file)).toContain(`writeJsonEvent({ type: "${type}"`)
      expect(repoFile(e2e)).toContain(`event["type"] === "${type}"`)
    }
    expect([...rendered, ...Object.keys(writtenElsewhere)].sort()).toEqual([...eventTypes()].sort())
  })

  it("the schema takes a subagent's path on an event (the task tool's field; no code on this branch writes it yet)", () => {
    const [session] = asWritten(rendererEvents())
    expect(() => checkJsonEvents([session ?? {}, { type: "text", text: "x", agent: [{ call_id: "c9", index: 2, name: "explore" }] }])).not.toThrow()
  })

  it("the first line of a stream carries the version, after the type, and only the first", () => {
    const line = makeJsonEventLines()
    expect(line({ type: "error", message: "m" })).toBe('{"type":"error","version":1,"message":"m"}\n')
    expect(line({ type: "note", text: "n" })).toBe('{"type":"note","text":"n"}\n')
  })

  const refused: ReadonlyArray<readonly [string, ReadonlyArray<Record<string, unknown>>, string]> = [
    ["an event type the schema does not know", [{ type: "session", version: 1, id: "i", model: "m", workspace: "w", resumed: false }, { type: "thought", text: "x" }], "has no entry"],
    ["a field the schema does not know", [{ type: "note", version: 1, text: "x", colour: "red" }], "colour"],
    ["a missing field", [{ type: "tool_result", version: 1, id: "c", name: "read", ok: true, output: "" }], "duration_ms"],
    ["a wrong type", [{ type: "error", version: 1, message: 5 }], "must be string"],
    ["no version on the first event", [{ type: "note", text: "x" }], "version"],
    ["a version on a later event", [{ type: "note", version: 1, text: "x" }, { type: "note", version: 1, text: "y" }], "only the first"],
    ["an agent path of the wrong shape", [{ type: "note", version: 1, text: "x", agent: [{ call_id: "c", index: 0, name: "explore" }] }], "must be >= 1"]
  ]
  it.each(refused)("the checker refuses %s", (_name, events, problem) => {
    expect(() => checkJsonEvents(events)).toThrow(problem)
  })

  it("docs/json-events.md names every event type and every field of the schema", () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, "..", "..", "..", "docs", "json-events.md"), "utf8")
    const sections = doc.split(/^### /m).slice(1)
    const documented = new Map(sections.map((section) => [/^`([a-z_]+)`/.exec(section)?.[1] ?? "", section]))
    expect([...documented.keys()].sort()).toEqual([...eventTypes()].sort())
    for (const type of eventTypes()) {
      const properties = (jsonEventsSchema.$defs[type] as { properties: Record<string, unknown> }).properties
      for (const field of Object.keys(properties).filter((name) => !["type", "version", "agent"].includes(name))) {
        expect(documented.get(type), `docs/json-events.md, ${type}: field ${field}`).toContain(`| \`${field}\` |`)
      }
    }
    for (const common of ["type", "version", "agent"]) expect(doc).toContain(`| \`${common}\` |`)
  })
})
