/**
 * Subagents' transcripts in the session document (issue 26): optional (older files decode), nested,
 * and redacted item by item like the session's own, provider state kept.
 */
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { REDACTED } from "../../../src/secrets/redact.ts"
import { Secrets } from "../../../src/secrets/secrets.ts"
import type { ChildTranscript } from "../../../src/session/child-transcript.ts"
import { SessionDocument } from "../../../src/session/document.ts"
import { redactDocument } from "../../../src/session/redact-document.ts"

const key = "sk-test-0a1b2c3d4e5f60718293a4b5c6d7e8f9"
const base = {
  version: 1 as const,
  id: "20250101-000000-abcdef",
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  workspace: "/w",
  model: "local/m",
  mode: "work" as const,
  approval: "default" as const,
  items: [],
  usage: { inputTokens: 0, outputTokens: 0 }
}
const grandchild: ChildTranscript = {
  agent: "explore",
  index: 1,
  description: "look",
  status: "done",
  mode: "plan",
  model: "local/m",
  items: [{ _tag: "tool_result", id: "r", callId: "c", name: "bash", text: `token ${key}`, isError: false }],
  usage: { inputTokens: 3, outputTokens: 1 }
}
const child: ChildTranscript = {
  agent: "general",
  index: 2,
  description: `use ${key}`,
  status: "running",
  mode: "work",
  model: "local/m",
  items: [{ _tag: "assistant", id: "a", text: `the key is ${key}`, model: "local/m", toolCalls: [{ id: "c", name: "bash", arguments: {}, opaque: { protocol: "p", data: key } }] }],
  usage: { inputTokens: 5, outputTokens: 2 },
  agents: { call_g: grandchild }
}

describe("child transcripts in the session document", () => {
  it("decode and encode, nested; a document without them decodes as before", () => {
    const decode = Schema.decodeUnknownSync(SessionDocument)
    expect(decode(base).agents).toBeUndefined()
    const withChildren = decode(Schema.encodeSync(SessionDocument)({ ...base, agents: { call_1: child } }))
    expect(withChildren.agents?.["call_1"]?.agents?.["call_g"]?.items[0]).toMatchObject({ text: `token ${key}` })
  })

  it("are redacted at every depth, provider state untouched", () => {
    const redacted = redactDocument(new Secrets([key]), { ...base, agents: { call_1: child } })
    const stored = redacted.agents?.["call_1"]
    expect(stored?.description).toBe(`use ${REDACTED}`)
    expect(stored?.items[0]).toMatchObject({ text: `the key is ${REDACTED}` })
    expect(stored?.items[0]).toMatchObject({ toolCalls: [{ opaque: { data: key } }] })
    expect(stored?.agents?.["call_g"]?.items[0]).toMatchObject({ text: `token ${REDACTED}` })
    expect(JSON.stringify(redacted).split(key)).toHaveLength(2)
  })
})
