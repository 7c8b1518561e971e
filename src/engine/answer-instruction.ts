/**
 * What the model is told under `crystal run --output-schema`, on every request of the turn: the
 * native structured-output fields constrain the answer where a wire has them; this tells the model
 * what is wanted where none does (DeepSeek) and why the answer looks the way it must elsewhere.
 */
import type { OutputSchema } from "../providers/model-client.ts"

export const answerInstruction = (schema: OutputSchema): string =>
  [
    "The operator asked for a structured answer. Use the tools as you need to first; then give your final answer as exactly one JSON value valid against the JSON Schema below: nothing before or after it, no prose, no code fence.",
    JSON.stringify(schema.schema)
  ].join("\n\n")

/** The system text of a request, with the instruction after it when there is a schema. */
export const withAnswerInstruction = (system: string, schema: OutputSchema | undefined): string =>
  schema === undefined ? system : system === "" ? answerInstruction(schema) : `${system}\n\n${answerInstruction(schema)}`
