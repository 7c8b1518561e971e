/** /usage: the session's tokens and cost by model, and the last turn's. */
import { describe, expect, it } from "vitest"
import { recordUsage, type SessionDocument } from "../../../src/session/document.ts"
import { priceLookup } from "../../../src/providers/pricing.ts"
import { usageReport } from "../../../src/tui/usage-command.ts"

const empty: SessionDocument = {
  version: 1,
  id: "s",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  workspace: "/ws",
  model: "local/a",
  mode: "work",
  approval: "default",
  items: [],
  usage: { inputTokens: 0, outputTokens: 0 }
}

const prices = priceLookup({ "local/a": { input: 2, output: 10 } })

const answered = (model: string, inputTokens: number, outputTokens: number) =>
  ({ _tag: "assistant", id: `a${inputTokens}`, text: "ok", model, usage: { inputTokens, outputTokens } }) as const

describe("/usage", () => {
  it("says when nothing was asked yet", () => {
    expect(usageReport(empty, prices)).toEqual(["no model requests yet"])
  })

  it("gives the session total with its cost and the last turn's", () => {
    const first = answered("local/a", 1_000, 100)
    const second = answered("local/a", 3_000, 200)
    const transcript: SessionDocument = { ...empty, items: [{ _tag: "user", id: "u1", text: "first" }, first, { _tag: "user", id: "u2", text: "second" }, second] }
    const doc = recordUsage(recordUsage(transcript, first.model, first.usage), second.model, second.usage)
    expect(usageReport(doc, prices)).toEqual(["session    4,000 in, 300 out · cost $0.0110", "last turn  3,000 in, 200 out · cost $0.0080"])
  })

  it("splits by model, and gives no cost when one has no price", () => {
    const doc = recordUsage(recordUsage(empty, "local/a", { inputTokens: 1_000_000, outputTokens: 0 }), "ollama/qwen", { inputTokens: 10, outputTokens: 5 })
    expect(usageReport(doc, prices)).toEqual([
      'session    1,000,010 in, 5 out · cost unknown (no price for ollama/qwen; set "pricing" in config.json)',
      "  local/a: 1,000,000 in, 0 out · $2.00",
      '  ollama/qwen: 10 in, 5 out · unknown (no price for ollama/qwen; set "pricing" in config.json)'
    ])
  })

  it("gives no cost for a session saved before usage was kept by model", () => {
    const old = { ...empty, usage: { inputTokens: 500, outputTokens: 50 } }
    expect(usageReport(recordUsage(old, "local/a", { inputTokens: 100, outputTokens: 10 }), prices)[0]).toBe(
      "session    600 in, 60 out · cost unknown (some usage was saved before Crystal kept it by model)"
    )
  })
})
