/**
 * Anthropic's tool input and OpenAI's `json_schema` (Chat Completions and Responses) take only an
 * object at a schema's root. Any other `--output-schema` goes there as the `answer` property of a
 * wrapper object, and the answer comes back out of it: one helper for the three wires.
 */
import * as Stream from "effect/Stream"
import { isRecord } from "../config/raw-config.ts"
import type { ProviderError } from "./errors.ts"
import type { ModelEvent, OutputSchema } from "./model-client.ts"

const answerKey = "answer"

export const wrapsAnswer = (schema: OutputSchema): boolean => schema.schema["type"] !== "object"

/**
 * The schema as a wire that wants an object root gets it. `$ref`s such as `#/$defs/item` resolve
 * from the root, so `$defs`/`definitions` move up to the wrapper's; `$schema` and `$id` name a root
 * and are dropped from the wrapped part (a `$ref` of `#` itself, the whole answer, would now mean the
 * wrapper: a limit).
 */
export const objectRootSchema = (schema: OutputSchema): Record<string, unknown> => {
  if (!wrapsAnswer(schema)) return { ...schema.schema }
  const { $defs, definitions, $schema: _declared, $id: _id, ...inner } = schema.schema
  return {
    type: "object",
    properties: { [answerKey]: inner },
    required: [answerKey],
    additionalProperties: false,
    ...($defs === undefined ? {} : { $defs }),
    ...(definitions === undefined ? {} : { definitions })
  }
}

/** The answer out of the wrapper `objectRootSchema` made (anything else is left for the validator to name). */
export const unwrappedAnswer = (schema: OutputSchema, value: unknown): unknown =>
  wrapsAnswer(schema) && isRecord(value) && Object.keys(value).length === 1 && answerKey in value ? value[answerKey] : value

/**
 * A response's streamed text from a wire that was sent the wrapper: held to the end of the
 * response, then the answer taken out of the wrapper (text that is not the wrapper goes on as it
 * came). A schema that needed no wrapper leaves the stream alone.
 */
export const unwrapAnswerText = (schema: OutputSchema | undefined) => <R>(events: Stream.Stream<ModelEvent, ProviderError, R>) => {
  if (schema === undefined || !wrapsAnswer(schema)) return events
  return Stream.suspend(() => {
    let held = ""
    const release = (): Array<ModelEvent> => {
      const text = held
      held = ""
      if (text === "") return []
      try {
        const value: unknown = JSON.parse(text)
        const answer = unwrappedAnswer(schema, value)
        return [{ type: "text_delta", text: answer === value ? text : JSON.stringify(answer) }]
      } catch {
        return [{ type: "text_delta", text }]
      }
    }
    const mapped = Stream.mapConcat(events, (event): ReadonlyArray<ModelEvent> => {
      if (event.type === "text_delta") {
        held += event.text
        return []
      }
      return event.type === "finish" ? [...release(), event] : [event]
    })
    return Stream.concat(mapped, Stream.suspend(() => Stream.fromIterable(release())))
  })
}
