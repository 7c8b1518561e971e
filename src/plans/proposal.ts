/**
 * A plan put to the operator (propose_plan) and what they decided. In the terminal a dialog asks
 * (Start working on it / Keep planning / Edit); `crystal run` has nobody to ask and prints the plan.
 */
export interface ProposedPlan {
  readonly path: string
  readonly text: string
}

/** What the dialog is given: the plan, and how to read it again after the operator edited the file. */
export interface PlanProposal extends ProposedPlan {
  /** The file's text now (synchronous: the dialog calls it right after the editor exits); undefined when it is gone or refused (a link, a FIFO). */
  readonly reread: () => string | undefined
}

export type PlanDecision =
  /** Switch to Work mode; the plan becomes the next turn's instruction. */
  | { readonly _tag: "StartWorking" }
  /** Stay in Plan mode; the comment (possibly empty) goes back to the model. */
  | { readonly _tag: "KeepPlanning"; readonly comment: string }
  /** Nobody is there to decide (`crystal run`). */
  | { readonly _tag: "NoOperator" }
