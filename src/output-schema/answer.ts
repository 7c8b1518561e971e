/** The final answer's text read as the one JSON value `--output-schema` asks for, or what is wrong with it. */
import type { AnswerSchema } from "./schema-file.ts"
import { oneLine } from "../text/clip.ts"
import { messageOf } from "../text/error-text.ts"

export type CheckedAnswer = { readonly _tag: "Valid"; readonly value: unknown } | { readonly _tag: "Invalid"; readonly errors: ReadonlyArray<string> }

/** A model told "no code fence" still sometimes wraps its JSON in one: one fence around the whole answer is taken off. */
const unfenced = (text: string): string => /^```(?:json)?[ \t]*\n([\s\S]*?)\n```$/.exec(text)?.[1] ?? text

export const checkAnswer = (schema: AnswerSchema, text: string): CheckedAnswer => {
  const trimmed = unfenced(text.trim()).trim()
  if (trimmed === "") return { _tag: "Invalid", errors: ["the answer is empty: one JSON value was expected"] }
  let value: unknown
  try {
    value = JSON.parse(trimmed)
  } catch (error) {
    return { _tag: "Invalid", errors: [oneLine(`the answer is not one JSON value (${messageOf(error)})`)] }
  }
  const errors = schema.check(value)
  return errors.length === 0 ? { _tag: "Valid", value } : { _tag: "Invalid", errors }
}

/** What the model is sent after an invalid answer: the errors, and what to do. */
export const retryInstruction = (errors: ReadonlyArray<string>): string =>
  [
    "Your final answer does not match the required JSON Schema:",
    ...errors.map((error) => `- ${error}`),
    "Answer again with only the corrected JSON value: nothing before or after it."
  ].join("\n")
