/**
 * The approval step between a call's classification and its run (SPEC A2, A3, A4, A7). The host
 * decides: plan mode's read-only rule, then the policy of the approval mode, then an earlier
 * allow-for-this-session answer, then (review mode only) the reviewer, then the operator.
 * A denial becomes a host-written result the model reads.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Classification } from "../approval/classification.ts"
import { decide, modeThatWouldAllow, type ApprovalMode, type CallFacts } from "../approval/policy.ts"
import type { Mode } from "../session/document.ts"
import type { ToolCall } from "../session/items.ts"
import { Conversation } from "./conversation.ts"
import { conversationDigest } from "./conversation-digest.ts"
import { Operator } from "./operator.ts"
import { Renderer, type ApprovalEvent } from "./renderer.ts"
import { Reviewer, type ReviewResult } from "./reviewer.ts"
import { Toolbox } from "./toolbox.ts"

/** `sandbox`: the call runs in the OS sandbox (a read the policy let through unasked, or any call under plan approval). */
export type Verdict = { readonly _tag: "Run"; readonly sandbox?: "read-only" | undefined } | { readonly _tag: "Refuse"; readonly text: string }

/** The built-in tools whose every write goes through the path fence (SPEC A2 "edit" mode). */
const builtinEditTools: ReadonlySet<string> = new Set(["edit", "write"])

const planModeRefusal = (c: Classification): string =>
  `Denied: ${c.summary}. The session is in plan mode, which is read-only: nothing may be changed or run. ` +
  `Describe the change in the plan instead; the operator switches to work mode to carry it out.`

const noOperatorRefusal = (c: Classification, mode: ApprovalMode, facts: CallFacts, review: ReviewResult | undefined): string => {
  const wouldAllow = modeThatWouldAllow(facts)
  const hint = wouldAllow === undefined ? "" : ` It would run without asking under --approval ${wouldAllow}.`
  const reviewed = review === undefined ? "" : ` The reviewer left it to the operator: ${review.reason}`
  return (
    `Denied: ${c.summary} needs the operator's approval in the ${mode} approval mode, and nobody can approve ` +
    `in this non-interactive run.${withStop(reviewed)}${hint} Do not retry it; find another way or report what you need.`
  )
}

const withStop = (text: string): string => (text === "" || /[.!?]$/.test(text) ? text : `${text}.`)

const reviewerRefusal = (c: Classification, review: ReviewResult): string =>
  `Denied by the reviewer: ${c.summary}. Reason: ${withStop(review.reason)} Do not retry it unchanged; ` +
  `if the operator really wants this, they can ask for it explicitly.`

/**
 * The reviewer's opinion of a call (review mode). Sessions provide a Reviewer; a context without
 * one (a test, an embedding) gets "ask", never "allow". The transcript is read for the digest only.
 */
const reviewCall = (call: ToolCall, classification: Classification): Effect.Effect<ReviewResult> =>
  Effect.gen(function* () {
    const reviewer = yield* Effect.serviceOption(Reviewer)
    if (Option.isNone(reviewer)) return { outcome: "ask", reason: "no reviewer is available in this session", verdict: undefined } satisfies ReviewResult
    const conversation = yield* Effect.serviceOption(Conversation)
    const items = Option.isSome(conversation) ? (yield* conversation.value.document).items : []
    return yield* reviewer.value.review({
      toolName: call.name,
      arguments: call.arguments,
      classification,
      conversation: conversationDigest(items)
    })
  })

export const authorize = (
  call: ToolCall,
  classification: Classification,
  settings: { readonly mode: Mode; readonly approval: ApprovalMode }
): Effect.Effect<Verdict, never, Toolbox | Operator | Renderer> =>
  Effect.gen(function* () {
    const toolbox = yield* Toolbox
    const renderer = yield* Renderer
    const report = (outcome: ApprovalEvent["outcome"], by: ApprovalEvent["by"]) =>
      renderer.approval({ callId: call.id, toolName: call.name, outcome, by, approvalMode: settings.approval, classification })
    const refuse = (by: ApprovalEvent["by"], text: string) => report("denied", by).pipe(Effect.as<Verdict>({ _tag: "Refuse", text }))
    const run = (by: ApprovalEvent["by"]) => {
      const sandboxed = (by === "policy" && classification.authority === "read") || settings.approval === "plan"
      return report("allowed", by).pipe(Effect.as<Verdict>({ _tag: "Run", sandbox: sandboxed ? "read-only" : undefined }))
    }

    if (settings.mode === "plan" && classification.authority !== "read") return yield* refuse("plan mode", planModeRefusal(classification))
    const facts: CallFacts = { classification, builtinEdit: builtinEditTools.has(call.name) }
    const decision = decide(settings.approval, facts)
    if (decision._tag === "Deny") return yield* refuse("policy", `Denied: ${classification.summary}. ${decision.reason}.`)
    if (decision._tag === "Allow") return yield* run("policy")
    const key = classification.grantKey
    if (key !== undefined && toolbox.sessionGrants.has(key)) return yield* run("session")

    let review: ReviewResult | undefined
    if (settings.approval === "review") {
      review = yield* reviewCall(call, classification)
      if (review.outcome === "allow") return yield* run("reviewer")
      if (review.outcome === "deny") return yield* refuse("reviewer", reviewerRefusal(classification, review))
      yield* renderer.note(`The reviewer left ${classification.summary} to the operator: ${review.reason}`)
    }

    const operator = yield* Operator
    const answer = yield* operator.approve({ toolName: call.name, arguments: call.arguments, classification, mode: settings.approval })
    switch (answer._tag) {
      case "AllowOnce":
        return yield* run("operator")
      case "AllowSession":
        if (key !== undefined) toolbox.sessionGrants.add(key)
        return yield* run("operator")
      case "Deny":
        return yield* refuse(
          "operator",
          `Denied by the operator: ${classification.summary}.${answer.message === undefined || answer.message === "" ? "" : ` Their message: ${answer.message}`}`
        )
      case "NoOperator":
        return yield* refuse("nobody to ask", noOperatorRefusal(classification, settings.approval, facts, review))
    }
  })
