import * as os from "node:os"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { ApprovalPolicy } from "../../../src/approval/approval-policy.ts"
import type { Authority, Classification, Risk, Scope } from "../../../src/approval/classification.ts"
import { approvalModes, decide, modeThatWouldAllow, type ApprovalMode } from "../../../src/approval/policy.ts"

const call = (risk: Risk, authority: Authority, scope: Scope): Classification => ({
  risk,
  authority,
  scope,
  summary: `${authority} ${scope}`,
  paths: scope === "outside" && authority !== "read" ? [{ real: "/elsewhere/x", access: "write", scope }] : []
})

type Row = readonly [ApprovalMode, Risk, Authority, Scope, boolean, "Allow" | "Ask" | "Deny"]

// mode, risk, authority, scope, built-in edit tool, decision
const table: ReadonlyArray<Row> = [
  ["plan", "low", "read", "workspace", false, "Allow"],
  ["plan", "low", "read", "granted", false, "Allow"],
  ["plan", "high", "read", "outside", false, "Deny"],
  ["plan", "medium", "write", "workspace", true, "Deny"],
  ["plan", "medium", "execute", "workspace", false, "Deny"],
  ["default", "low", "read", "workspace", false, "Allow"],
  ["default", "low", "read", "granted", false, "Allow"],
  ["default", "high", "read", "outside", false, "Ask"],
  ["default", "medium", "write", "workspace", true, "Ask"],
  ["default", "medium", "execute", "workspace", false, "Ask"],
  ["edit", "low", "read", "workspace", false, "Allow"],
  ["edit", "medium", "write", "workspace", true, "Allow"],
  ["edit", "medium", "write", "granted", true, "Allow"],
  ["edit", "high", "write", "outside", true, "Ask"],
  ["edit", "medium", "write", "workspace", false, "Ask"],
  ["edit", "medium", "execute", "workspace", false, "Ask"],
  ["audit", "low", "read", "workspace", false, "Ask"],
  ["audit", "medium", "write", "workspace", true, "Ask"],
  ["full", "low", "read", "workspace", false, "Allow"],
  ["full", "high", "read", "outside", false, "Allow"],
  ["full", "medium", "write", "workspace", false, "Allow"],
  ["full", "high", "execute", "workspace", false, "Allow"],
  ["full", "high", "write", "outside", true, "Ask"],
  ["full", "high", "execute", "outside", false, "Ask"]
]

describe("approval policy", () => {
  it.each(table)("%s: %s %s in %s (built-in edit %s) → %s", (mode, risk, authority, scope, builtinEdit, expected) => {
    expect(decide(mode, { classification: call(risk, authority, scope), builtinEdit })._tag).toBe(expected)
  })

  // The plan tool: its only write is the session's plan file, at a path Crystal chose (ToolSpec.writesSessionFile).
  const planWrite: Classification = { risk: "low", authority: "write", scope: "outside", summary: "write the session's plan", paths: [] }
  it.each([
    ["plan", "Allow"],
    ["default", "Allow"],
    ["edit", "Allow"],
    ["review", "Allow"],
    ["audit", "Ask"],
    ["full", "Allow"]
  ] as const)("the session's plan file under %s → %s; the same write without the session-file fact is not allowed that way", (mode, expected) => {
    expect(decide(mode, { classification: planWrite, builtinEdit: false, sessionFile: true })._tag).toBe(expected)
    if (mode !== "full") expect(decide(mode, { classification: planWrite, builtinEdit: false })._tag).not.toBe("Allow")
    expect(decide(mode, { classification: { ...planWrite, authority: "read" }, builtinEdit: false, sessionFile: true })._tag).toBe(expected)
    // A forbidden classification stays refused, and an execute is not a session-file write.
    expect(decide(mode, { classification: { ...planWrite, risk: "forbidden" }, builtinEdit: false, sessionFile: true })._tag).toBe("Deny")
    expect(decide(mode, { classification: { ...planWrite, authority: "execute" }, builtinEdit: false, sessionFile: true })._tag).toBe(
      decide(mode, { classification: { ...planWrite, authority: "execute" }, builtinEdit: false })._tag
    )
  })

  it.each(approvalModes)("refuses forbidden calls in %s mode", (mode) => {
    for (const authority of ["read", "write", "execute"] as const) {
      expect(decide(mode, { classification: call("forbidden", authority, "workspace"), builtinEdit: false })._tag).toBe("Deny")
    }
  })

  // A write to a protected file (git config or hooks, a start-up file): never auto-approved in edit mode, asked in full mode.
  const planted: Classification = { ...call("high", "write", "workspace"), protectedWrite: "changes git hooks, which git runs" }
  const protectedTable: ReadonlyArray<readonly [ApprovalMode, boolean, "Allow" | "Ask" | "Deny"]> = [
    ["plan", true, "Deny"],
    ["default", true, "Ask"],
    ["edit", true, "Ask"],
    ["edit", false, "Ask"],
    ["review", true, "Ask"],
    ["audit", true, "Ask"],
    ["full", true, "Ask"],
    ["full", false, "Ask"]
  ]
  it.each(protectedTable)("%s: a protected write (built-in edit %s) → %s", (mode, builtinEdit, expected) => {
    expect(decide(mode, { classification: planted, builtinEdit })._tag).toBe(expected)
  })

  it("lets no mode auto-approve a protected write", () => {
    expect(modeThatWouldAllow({ classification: planted, builtinEdit: true })).toBeUndefined()
  })

  // A prompt requirement (`"approval": "always"`, an onApproval hook's `ask`): whatever would run asks; a refusal stays one.
  it.each(approvalModes)("%s: a call that must ask never runs unasked and a refusal stays a refusal", (mode) => {
    for (const row of table.filter(([rowMode]) => rowMode === mode)) {
      const [, risk, authority, scope, builtinEdit, expected] = row
      const decision = decide(mode, { classification: { ...call(risk, authority, scope), ask: true }, builtinEdit })._tag
      expect(decision).toBe(expected === "Deny" ? "Deny" : "Ask")
    }
    expect(decide(mode, { classification: { ...call("forbidden", "read", "workspace"), ask: true }, builtinEdit: false })._tag).toBe("Deny")
  })

  it("names the least permissive mode that would have allowed a call", () => {
    expect(modeThatWouldAllow({ classification: call("medium", "write", "workspace"), builtinEdit: true })).toBe("edit")
    expect(modeThatWouldAllow({ classification: call("medium", "execute", "workspace"), builtinEdit: false })).toBe("full")
    expect(modeThatWouldAllow({ classification: call("forbidden", "execute", "workspace"), builtinEdit: false })).toBeUndefined()
    expect(modeThatWouldAllow({ classification: call("high", "write", "outside"), builtinEdit: true })).toBeUndefined()
  })
})

describe("ApprovalPolicy with a prompt requirement", () => {
  const decideTwice = (approval: ApprovalMode) =>
    Effect.runPromise(
      Effect.gen(function* () {
        const policy = yield* ApprovalPolicy.make({
          workspace: os.tmpdir(),
          fixed: [],
          grants: [],
          reviewer: { review: () => Effect.succeed({ outcome: "allow", reason: "the reviewer would allow it", verdict: undefined }) }
        })
        const classification: Classification = { ...call("medium", "write", "workspace"), grantKey: "tool:x", ask: true }
        const request = { toolName: "x", arguments: {}, classification, writesThroughFence: false, mode: "work", approval, conversation: Effect.succeed("") } as const
        yield* policy.rememberForSession("tool:x")
        return (yield* policy.decide(request))._tag
      })
    )

  it.each(["default", "review", "full"] as const)("%s: neither an allow-for-this-session answer nor the reviewer stands in for the person", async (approval) => {
    expect(await decideTwice(approval)).toBe("Ask")
  })
})
