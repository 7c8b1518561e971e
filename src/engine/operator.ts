import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { AgentPath } from "../agents/definition.ts"
import type { Classification } from "../approval/classification.ts"
import type { PlanDecision, PlanProposal } from "../plans/proposal.ts"
import type { Question, QuestionsOutcome } from "../tools/questions.ts"

export interface ApprovalRequest {
  readonly toolName: string
  readonly arguments: unknown
  readonly classification: Classification
  /** The approval mode in force, so the dialog can say why it is asking. */
  readonly mode: string
  /** Set when a subagent asks (issue 26): every depth asks the root's operator, who is told which agent. */
  readonly agent?: AgentPath | undefined
  /** The id of the tool call asking: an agent can run several calls at once (a task beside another call). */
  readonly callId?: string | undefined
}

/** SPEC A7: allow once, allow for this session (same tool and command prefix or path), deny, deny with a message. */
export type ApprovalAnswer =
  | { readonly _tag: "AllowOnce" }
  | { readonly _tag: "AllowSession" }
  | { readonly _tag: "Deny"; readonly message?: string | undefined }
  /** Nobody is there to answer (`crystal run`): the call is refused and the model told why. */
  | { readonly _tag: "NoOperator" }

/**
 * Everything that needs a person. The engine never reads the terminal itself: interactive
 * sessions ask through dialogs, `crystal run` has nobody to ask and answers for itself.
 */
export interface OperatorShape {
  /** A yes/no decision; `defaultAnswer` is what silence (no person) means. */
  readonly confirm: (question: string, defaultAnswer: boolean) => Effect.Effect<boolean>
  readonly approve: (request: ApprovalRequest) => Effect.Effect<ApprovalAnswer>
  /**
   * Asks the questions in order. A single single-select question is answered by one pick; several
   * questions or a multi-select share one confirm step before they are submitted.
   */
  readonly askQuestions: (questions: ReadonlyArray<Question>) => Effect.Effect<QuestionsOutcome>
  /**
   * Shows the session's plan and asks what comes next (propose_plan); the text is re-read from the
   * file if the operator edits it. Absent where nobody can decide (`crystal run`): NoOperator.
   */
  readonly proposePlan?: ((plan: PlanProposal) => Effect.Effect<PlanDecision>) | undefined
}

export class Operator extends Context.Tag("crystal/Operator")<Operator, OperatorShape>() {}
