/**
 * The approval step between a call's classification and its run (SPEC A2, A3, A4, A7). The host's
 * ApprovalPolicy decides; what it leaves to a person goes to the Operator. Every outcome is
 * reported to the Renderer, and a denial becomes a host-written result the model reads.
 */
import * as Effect from "effect/Effect"
import { ApprovalPolicy, noOperatorRefusal, type PolicyRequest } from "../approval/approval-policy.ts"
import type { Classification } from "../approval/classification.ts"
import type { ApprovalMode } from "../approval/policy.ts"
import type { Mode } from "../session/document.ts"
import type { ToolCall } from "../session/items.ts"
import { Conversation } from "./conversation.ts"
import { conversationDigest } from "./conversation-digest.ts"
import { Operator } from "./operator.ts"
import { Renderer, type ApprovalEvent } from "./renderer.ts"

/** `sandbox`: the call runs in the OS sandbox (a read the policy let through unasked, or any call under plan approval). */
export type Verdict =
  | { readonly _tag: "Run"; readonly by: ApprovalEvent["by"]; readonly sandbox?: "read-only" | undefined }
  | { readonly _tag: "Refuse"; readonly text: string }

export interface AuthorizeSettings {
  readonly mode: Mode
  readonly approval: ApprovalMode
  /** From the tool's spec: its every write goes through the path fence. */
  readonly writesThroughFence: boolean
  /** From the tool's spec: its only write is the session's own file (the plan). */
  readonly writesSessionFile?: boolean | undefined
}

export const authorize = (
  call: ToolCall,
  classification: Classification,
  settings: AuthorizeSettings
): Effect.Effect<Verdict, never, ApprovalPolicy | Conversation | Operator | Renderer> =>
  Effect.gen(function* () {
    const policy = yield* ApprovalPolicy
    const renderer = yield* Renderer
    const conversation = yield* Conversation
    const report = (outcome: ApprovalEvent["outcome"], by: ApprovalEvent["by"]) =>
      renderer.approval({ callId: call.id, toolName: call.name, outcome, by, approvalMode: settings.approval, classification })
    const refuse = (by: ApprovalEvent["by"], text: string) => report("denied", by).pipe(Effect.as<Verdict>({ _tag: "Refuse", text }))
    const run = (by: ApprovalEvent["by"]) => {
      const sandboxed = (by === "policy" && classification.authority === "read") || settings.approval === "plan"
      return report("allowed", by).pipe(Effect.as<Verdict>({ _tag: "Run", by, sandbox: sandboxed ? "read-only" : undefined }))
    }

    const request: PolicyRequest = {
      toolName: call.name,
      arguments: call.arguments,
      classification,
      writesThroughFence: settings.writesThroughFence,
      writesSessionFile: settings.writesSessionFile,
      mode: settings.mode,
      approval: settings.approval,
      conversation: Effect.map(conversation.document, (doc) => conversationDigest(doc.items))
    }
    const decision = yield* policy.decide(request)
    if (decision._tag === "Run") return yield* run(decision.by)
    if (decision._tag === "Refuse") return yield* refuse(decision.by, decision.text)
    if (decision.review !== undefined) yield* renderer.note(`The reviewer left ${classification.summary} to the operator: ${decision.review.reason}`)

    const operator = yield* Operator
    const answer = yield* operator.approve({ toolName: call.name, arguments: call.arguments, classification, mode: settings.approval, callId: call.id })
    switch (answer._tag) {
      case "AllowOnce":
        return yield* run("operator")
      case "AllowSession":
        if (classification.grantKey !== undefined) yield* policy.rememberForSession(classification.grantKey)
        return yield* run("operator")
      case "Deny":
        return yield* refuse(
          "operator",
          `Denied by the operator: ${classification.summary}.${answer.message === undefined || answer.message === "" ? "" : ` Their message: ${answer.message}`}`
        )
      case "NoOperator":
        return yield* refuse("nobody to ask", noOperatorRefusal(request, decision.review))
    }
  })
