import * as Effect from "effect/Effect"
import type { OperatorShape } from "../src/engine/operator.ts"

/** `crystal run`: nobody is there to answer, so every question gets its safe default and asks are refused. */
export const headlessOperator: OperatorShape = {
  confirm: (_question, defaultAnswer) => Effect.succeed(defaultAnswer),
  approve: () => Effect.succeed({ _tag: "NoOperator" }),
  askQuestions: () => Effect.succeed({ _tag: "NoOperator" })
}
