import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Operator } from "../src/engine/operator.ts"

/** `crystal run`: nobody is there to answer, so every question gets its safe default. */
export const HeadlessOperator: Layer.Layer<Operator> = Layer.succeed(Operator, {
  confirm: (_question, defaultAnswer) => Effect.succeed(defaultAnswer)
})
