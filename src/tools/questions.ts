/** What the question tool asks the operator and what comes back (SPEC T3); the Operator service asks. */
import type * as Effect from "effect/Effect"

export interface QuestionOption {
  readonly label: string
  readonly description: string
}

/** One question of the question tool (SPEC T3). */
export interface Question {
  readonly header: string
  readonly question: string
  readonly options: ReadonlyArray<QuestionOption>
  readonly multiSelect: boolean
  /** Whether the operator may type an answer of their own (on by default). */
  readonly allowCustom: boolean
  /**
   * Labels of options chosen before the operator does anything: a single choice starts on the
   * first, a multi-select starts with all of them ticked (an MCP form's defaults).
   */
  readonly initial?: ReadonlyArray<string>
}

export interface QuestionAnswer {
  /** Labels of the chosen options, in the order shown. */
  readonly selected: ReadonlyArray<string>
  /** Text the operator typed instead of (or besides) picking options. */
  readonly custom?: string | undefined
}

export type QuestionsOutcome =
  | { readonly _tag: "Answered"; readonly answers: ReadonlyArray<QuestionAnswer> }
  | { readonly _tag: "Dismissed" }
  | { readonly _tag: "NoOperator" }

/** Whoever can ask the operator: the session's Operator service. */
export interface QuestionAsker {
  readonly askQuestions: (questions: ReadonlyArray<Question>) => Effect.Effect<QuestionsOutcome>
}
