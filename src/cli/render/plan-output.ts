/**
 * What `crystal run --mode plan` prints once its turn is over: the session's plan and its path
 * (docs/plans.md). JSON: one `{"type":"plan","path","text"}` event; text: the path, then the plan,
 * on stdout, made inert when stdout is a terminal (the plan is the model's text).
 */
import * as Effect from "effect/Effect"
import type { PlanFileShape } from "../../plans/plan-file.ts"
import { visible } from "../../terminal/inert.ts"
import { writeJsonEvent } from "./json-event.ts"
import { writeStderr, writeStdout } from "../../terminal/output.ts"
import type { OutputFormat } from "../flags.ts"
import { isTerminal } from "../prompt-input.ts"

export const printPlan = (format: OutputFormat, plan: PlanFileShape): Effect.Effect<void> =>
  Effect.gen(function* () {
    const read = yield* plan.read
    if (read._tag === "Missing") {
      if (format === "text") yield* Effect.sync(() => writeStderr(visible(`No plan was written (${plan.path}).\n`)))
      return
    }
    if (read._tag === "Refused") {
      if (format === "text") yield* Effect.sync(() => writeStderr(visible(`The plan was not read: ${read.reason}.\n`)))
      return
    }
    if (format === "json") return yield* Effect.sync(() => writeJsonEvent({ type: "plan", path: plan.path, text: read.text }))
    const terminal = yield* Effect.promise(() => isTerminal(1))
    const text = `\nPlan: ${plan.path}\n\n${read.text.endsWith("\n") ? read.text : `${read.text}\n`}`
    yield* Effect.sync(() => writeStdout(terminal ? visible(text) : text))
  })
