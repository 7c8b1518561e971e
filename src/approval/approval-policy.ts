/**
 * The ApprovalPolicy service (SPEC A2, A3, A7): everything the host decides about a classified
 * call before it runs. Plan mode's read-only rule (whose one exception is the session's plan file,
 * written by the tool whose spec says `writesSessionFile`), then the approval mode's policy (policy.ts),
 * then an earlier allow-for-this-session answer, then (review mode only) the reviewer. What is
 * left is an Ask, which the engine puts to the operator. It also owns the session's path fence:
 * the workspace, the directories every session may read, and the operator's /access grants,
 * held in a Ref so one place changes them.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type { Classification } from "./classification.ts"
import { makePathFence, type Access, type PathFence } from "./path-fence.ts"
import { decide, modeThatWouldAllow, onlySessionFile, type ApprovalMode, type CallFacts } from "./policy.ts"
import type { ReviewerShape, ReviewResult } from "./reviewer.ts"

export interface DirectoryAccess {
  readonly dir: string
  readonly access: Access
}

export interface PolicyRequest {
  readonly toolName: string
  readonly arguments: unknown
  readonly classification: Classification
  /** The tool's every write goes through the path fence (its spec says so): edit mode may run it. */
  readonly writesThroughFence: boolean
  /** The tool's only write is the session's own file at Crystal's path (its spec says so): plan mode lets it run. */
  readonly writesSessionFile?: boolean | undefined
  readonly mode: "plan" | "work"
  readonly approval: ApprovalMode
  /** The conversation as the reviewer reads it; evaluated only when a review happens. */
  readonly conversation: Effect.Effect<string>
}

export type DecidedBy = "policy" | "session" | "reviewer" | "plan mode"

export type PolicyDecision =
  | { readonly _tag: "Run"; readonly by: Exclude<DecidedBy, "plan mode"> }
  | { readonly _tag: "Refuse"; readonly by: Exclude<DecidedBy, "session">; readonly text: string }
  /** Only a person can decide; `review` is what the reviewer said, in review mode. */
  | { readonly _tag: "Ask"; readonly review: ReviewResult | undefined }

export interface ApprovalPolicyShape {
  /** The fence for the next call: the workspace, the fixed read directories and the current grants. */
  readonly fence: Effect.Effect<PathFence>
  /** /access: the operator's grants from now on. */
  readonly setAccess: (grants: ReadonlyArray<DirectoryAccess>) => Effect.Effect<void>
  readonly decide: (request: PolicyRequest) => Effect.Effect<PolicyDecision>
  /** An allow-for-this-session answer: later calls with the same grant key run without asking. */
  readonly rememberForSession: (grantKey: string) => Effect.Effect<void>
}

export interface ApprovalPolicyOptions {
  readonly workspace: string
  /** Directories every call may reach whatever the operator granted (the spill folder, skill folders). */
  readonly fixed: ReadonlyArray<DirectoryAccess>
  /** The grants the session starts with (a resumed session's). */
  readonly grants: ReadonlyArray<DirectoryAccess>
  /** Asked in review mode; a reviewer that cannot answer says "ask", never "allow". */
  readonly reviewer: ReviewerShape
}

const withStop = (text: string): string => (text === "" || /[.!?]$/.test(text) ? text : `${text}.`)

const planModeRefusal = (c: Classification): string =>
  `Denied: ${c.summary}. The session is in plan mode, which is read-only: nothing may be changed or run. ` +
  `Describe the change in the plan instead; the operator switches to work mode to carry it out.`

const reviewerRefusal = (c: Classification, review: ReviewResult): string =>
  `Denied by the reviewer: ${c.summary}. Reason: ${withStop(review.reason)} Do not retry it unchanged; ` +
  `if the operator really wants this, they can ask for it explicitly.`

/** What the model reads when an Ask meets nobody to answer it (`crystal run`). */
export const noOperatorRefusal = (request: PolicyRequest, review: ReviewResult | undefined): string => {
  const c = request.classification
  const wouldAllow = modeThatWouldAllow({
    classification: c,
    builtinEdit: request.writesThroughFence,
    sessionFile: onlySessionFile(request.writesSessionFile, c)
  })
  const hint = wouldAllow === undefined ? "" : ` It would run without asking under --approval ${wouldAllow}.`
  const reviewed = review === undefined ? "" : ` The reviewer left it to the operator: ${review.reason}`
  return (
    `Denied: ${c.summary} needs the operator's approval in the ${request.approval} approval mode, and nobody can approve ` +
    `in this non-interactive run.${withStop(reviewed)}${hint} Do not retry it; find another way or report what you need.`
  )
}

export class ApprovalPolicy extends Context.Tag("crystal/ApprovalPolicy")<ApprovalPolicy, ApprovalPolicyShape>() {
  static readonly make = (options: ApprovalPolicyOptions): Effect.Effect<ApprovalPolicyShape> =>
    Effect.gen(function* () {
      const fenceFor = (grants: ReadonlyArray<DirectoryAccess>): PathFence => makePathFence(options.workspace, [...options.fixed, ...grants])
      const fence = yield* Ref.make(fenceFor(options.grants))
      const sessionGrants = yield* Ref.make<ReadonlySet<string>>(new Set())

      const review = (request: PolicyRequest) =>
        Effect.flatMap(request.conversation, (conversation) =>
          options.reviewer.review({ toolName: request.toolName, arguments: request.arguments, classification: request.classification, conversation })
        )

      return {
        fence: Ref.get(fence),
        setAccess: Effect.fn("ApprovalPolicy.setAccess")(function* (grants: ReadonlyArray<DirectoryAccess>) {
          yield* Ref.set(fence, fenceFor(grants))
        }),
        rememberForSession: Effect.fn("ApprovalPolicy.rememberForSession")(function* (grantKey: string) {
          yield* Ref.update(sessionGrants, (keys) => new Set([...keys, grantKey]))
        }),
        decide: Effect.fn("ApprovalPolicy.decide")(function* (request: PolicyRequest) {
          const c = request.classification
          const sessionFile = onlySessionFile(request.writesSessionFile, c)
          if (request.mode === "plan" && c.authority !== "read" && !sessionFile) return { _tag: "Refuse", by: "plan mode", text: planModeRefusal(c) } as const
          const facts: CallFacts = { classification: c, builtinEdit: request.writesThroughFence, sessionFile }
          const decision = decide(request.approval, facts)
          if (decision._tag === "Deny") return { _tag: "Refuse", by: "policy", text: `Denied: ${c.summary}. ${decision.reason}.` } as const
          if (decision._tag === "Allow") return { _tag: "Run", by: "policy" } as const
          // A prompt requirement is a person's answer each time: no session grant or reviewer stands in for it.
          if (c.ask === true) return { _tag: "Ask", review: undefined } as const
          if (c.grantKey !== undefined && (yield* Ref.get(sessionGrants)).has(c.grantKey)) return { _tag: "Run", by: "session" } as const
          if (request.approval !== "review") return { _tag: "Ask", review: undefined } as const
          const result = yield* review(request)
          if (result.outcome === "allow") return { _tag: "Run", by: "reviewer" } as const
          if (result.outcome === "deny") return { _tag: "Refuse", by: "reviewer", text: reviewerRefusal(c, result) } as const
          return { _tag: "Ask", review: result } as const
        })
      } satisfies ApprovalPolicyShape
    })

  static readonly layer = (options: ApprovalPolicyOptions): Layer.Layer<ApprovalPolicy> => Layer.effect(ApprovalPolicy, ApprovalPolicy.make(options))

  /**
   * For tests: the live rules on `workspace` with no grants, and a reviewer that answers as given
   * (by default it has no verdict, so review mode asks).
   */
  static readonly layerTest = (workspace: string, reviewer?: ReviewerShape): Layer.Layer<ApprovalPolicy> =>
    ApprovalPolicy.layer({
      workspace,
      fixed: [],
      grants: [],
      reviewer: reviewer ?? { review: () => Effect.succeed({ outcome: "ask", reason: "this test has no reviewer", verdict: undefined }) }
    })
}
