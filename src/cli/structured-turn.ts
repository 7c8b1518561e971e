/**
 * `crystal run --output-schema`: the turn, then its final answer checked against the schema. An
 * invalid answer gets one more turn that carries the errors (and no tool definitions: it only
 * corrects the answer); a second invalid answer is the run's failure.
 */
import * as Effect from "effect/Effect"
import { Conversation } from "../engine/conversation.ts"
import { Renderer } from "../engine/renderer.ts"
import { runTurn, type TurnOutcome, type TurnSettings, type UserInput } from "../engine/turn.ts"
import { checkAnswer, retryInstruction, type CheckedAnswer } from "../output-schema/answer.ts"
import type { AnswerSchema } from "../output-schema/schema-file.ts"
import { clip, oneLine } from "../text/clip.ts"
import { addUsage, emptyUsage } from "../session/document.ts"
import type { Usage } from "../session/items.ts"

export type StructuredOutcome =
  | { readonly _tag: "StepLimit"; readonly outcome: TurnOutcome }
  | { readonly _tag: "Checked"; readonly outcome: TurnOutcome; readonly answer: CheckedAnswer }

/** The turn's last model response: its text, and the tools it called. */
const lastResponse = Effect.map(Effect.flatMap(Conversation, (conversation) => conversation.document), (doc) => {
  const last = doc.items.findLast((item) => item._tag === "assistant")
  return last?._tag === "assistant" ? { text: last.text, calls: (last.toolCalls ?? []).map((call) => call.name) } : { text: "", calls: [] }
})

const lastAnswerText = Effect.map(lastResponse, (response) => response.text)

/** The correction's answer: a tool call there (none is offered, none was run) makes it invalid whatever its text. */
const checkCorrection = (schema: AnswerSchema) =>
  Effect.map(lastResponse, (response): CheckedAnswer =>
    response.calls.length > 0
      ? { _tag: "Invalid", errors: [`the model called ${[...new Set(response.calls)].map((name) => clip(oneLine(name), 64)).join(", ")} instead of answering (not run: the retry only corrects the answer)`] }
      : checkAnswer(schema, response.text)
  )

const mergeUsage = (a: Record<string, Usage>, b: Record<string, Usage>): Record<string, Usage> => {
  const merged = { ...a }
  for (const [model, usage] of Object.entries(b)) merged[model] = addUsage(merged[model] ?? emptyUsage, usage)
  return merged
}

/** Both turns' requests, as one outcome. */
const combined = (first: TurnOutcome, second: TurnOutcome): TurnOutcome => ({
  ...second,
  steps: first.steps + second.steps,
  usage: addUsage(first.usage, second.usage),
  usageByModel: mergeUsage(first.usageByModel, second.usageByModel)
})

export const structuredTurn = (input: UserInput, settings: TurnSettings, schema: AnswerSchema) =>
  Effect.gen(function* () {
    // What the requests carry: the schema and its name, not the validator.
    const outputSchema = { name: schema.name, schema: schema.schema }
    const first = yield* runTurn(input, { ...settings, outputSchema })
    if (first._tag === "StepLimit") return { _tag: "StepLimit", outcome: first } satisfies StructuredOutcome
    const answer = checkAnswer(schema, yield* lastAnswerText)
    if (answer._tag === "Valid") return { _tag: "Checked", outcome: first, answer } satisfies StructuredOutcome
    yield* (yield* Renderer).note(`The answer does not match ${schema.file} (${answer.errors.join("; ")}); asking the model once more.`)
    const second = yield* runTurn(retryInstruction(answer.errors), { ...settings, outputSchema, answerOnly: true })
    const outcome = combined(first, second)
    if (second._tag === "StepLimit") return { _tag: "StepLimit", outcome } satisfies StructuredOutcome
    return { _tag: "Checked", outcome, answer: yield* checkCorrection(schema) } satisfies StructuredOutcome
  })
