/**
 * SPEC X4, A2 as a table: approval mode × source × trust × the author's declaration × whose word
 * counts (/tools home|project author|host), decided by the host's real policy on the real tools'
 * classifications.
 */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { approvalModes, decide, type ApprovalMode } from "../../../src/approval/policy.ts"
import type { ApprovalAuthority } from "../../../src/external-tools/host.ts"
import { contextFor, load, makePlace, writeSet } from "./support.ts"

type Outcome = "Allow" | "Ask" | "Deny"

const setFiles = (approval: "always" | "policy") => ({
  "tools.json": { tools: [{ name: `t_${approval}`, description: "t", parameters: { type: "object" }, command: ["true"], approval }] }
})

/** Host policy: what every external tool gets without an "always" that counts. */
const byPolicy: Record<ApprovalMode, Outcome> = { plan: "Deny", default: "Ask", edit: "Ask", review: "Ask", audit: "Ask", full: "Allow" }
const always: Record<ApprovalMode, Outcome> = { plan: "Deny", default: "Ask", edit: "Ask", review: "Ask", audit: "Ask", full: "Ask" }

const rows: Array<{ source: "home" | "project"; trusted: boolean; declared: "always" | "policy"; authority: ApprovalAuthority | "default"; expected: Record<ApprovalMode, Outcome> | "absent" }> = [
  { source: "home", trusted: true, declared: "policy", authority: "default", expected: byPolicy },
  { source: "home", trusted: true, declared: "always", authority: "default", expected: always },
  { source: "home", trusted: true, declared: "always", authority: "author", expected: always },
  { source: "home", trusted: true, declared: "always", authority: "host", expected: byPolicy },
  { source: "project", trusted: true, declared: "policy", authority: "default", expected: byPolicy },
  { source: "project", trusted: true, declared: "always", authority: "default", expected: byPolicy },
  { source: "project", trusted: true, declared: "always", authority: "author", expected: always },
  { source: "project", trusted: true, declared: "always", authority: "host", expected: byPolicy },
  { source: "project", trusted: false, declared: "policy", authority: "default", expected: "absent" },
  { source: "project", trusted: false, declared: "always", authority: "author", expected: "absent" }
]

describe("external tool approval table", () => {
  for (const row of rows) {
    it(`${row.source} set, ${row.trusted ? "trusted" : "untrusted"}, declared ${row.declared}, ${row.authority} authority`, async () => {
      const place = await makePlace()
      await writeSet(place, row.source, "set", setFiles(row.declared))
      const control = await load(place, { answer: row.trusted })
      if (row.authority !== "default") control.setAuthority(row.source, row.authority)
      const tool = control.tools().find((candidate) => candidate.name === `t_${row.declared}`)
      if (row.expected === "absent") {
        expect(tool).toBeUndefined()
        return
      }
      expect(tool).toBeDefined()
      if (tool === undefined) return
      const classification = await Effect.runPromise(tool.classify({} as never, contextFor(place)))
      expect(classification).toMatchObject({ authority: "write", scope: "workspace", risk: "medium" })
      const outcomes = Object.fromEntries(approvalModes.map((mode) => [mode, decide(mode, { classification, builtinEdit: tool.writesThroughFence === true })._tag]))
      expect(outcomes).toEqual(row.expected)
      expect(control.rows()[0]?.approval).toBe(row.expected === always ? "always" : "policy")
    })
  }
})
