import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * Everything that needs a person. The engine never reads the terminal itself: interactive
 * sessions ask through dialogs, `crystal run` has nobody to ask and answers for itself.
 */
export interface OperatorShape {
  /** A yes/no decision; `defaultAnswer` is what silence (no person) means. */
  readonly confirm: (question: string, defaultAnswer: boolean) => Effect.Effect<boolean>
}

export class Operator extends Context.Tag("crystal/Operator")<Operator, OperatorShape>() {}
