/**
 * `--output-schema` on the Anthropic Messages API, which has no structured-output field: the schema
 * becomes a tool the model gives its final answer through, and the call comes back to the engine as
 * the answer's text. The model must call some tool on every step (tool_choice "any"), so its other
 * tools still work before the answer; with thinking on the API refuses a forced choice, and the
 * instructions alone ask for the tool (an answer in plain text is validated all the same).
 */
import * as Stream from "effect/Stream"
import type { Tool, ToolChoice } from "@anthropic-ai/sdk/resources/messages"
import type { ProviderError } from "./errors.ts"
import type { ModelEvent, OutputSchema } from "./model-client.ts"
import { objectRootSchema, unwrappedAnswer } from "./object-root-schema.ts"

export const answerTool = (schema: OutputSchema): Tool => ({
  name: schema.name,
  description:
    "Give your final answer by calling this tool, once you are done with the other tools; its input is the answer. Do not answer in plain text.",
  // A tool's input is an object: any other schema is wrapped in one, as its `answer`.
  input_schema: { ...objectRootSchema(schema), type: "object" }
})

export const answerToolChoice = (schema: OutputSchema, otherTools: number, thinking: boolean): ToolChoice =>
  thinking ? { type: "auto" } : otherTools === 0 ? { type: "tool", name: schema.name } : { type: "any" }

/** The answer tool's input as the answer's JSON text (a raw string: input that was not JSON, left for the validator to name). */
const answerText = (schema: OutputSchema, input: unknown): string => {
  if (typeof input === "string") return input
  return JSON.stringify(unwrappedAnswer(schema, input)) ?? ""
}

/**
 * The model's call of the answer tool, as text; a response that made no other call finished with
 * "stop". With thinking on (tool_choice auto) the model may write text before the call: once the
 * call comes the answer is its input alone, so text is held back and dropped then, and released at
 * the end of a response that never called the tool (an answer in plain text).
 */
export const answerToolAsText = (schema: OutputSchema) => <R>(events: Stream.Stream<ModelEvent, ProviderError, R>) =>
  Stream.suspend(() => {
    let otherCalls = false
    let answered = false
    let held: Array<ModelEvent> = []
    const release = (): Array<ModelEvent> => {
      const released = answered ? [] : held
      held = []
      return released
    }
    const mapped = Stream.mapConcat(events, (event): ReadonlyArray<ModelEvent> => {
      if (event.type === "text_delta") {
        if (!answered) held.push(event)
        return []
      }
      if (event.type === "tool_call") {
        if (event.name === schema.name) {
          answered = true
          held = []
          return [{ type: "text_delta", text: answerText(schema, event.arguments) }]
        }
        otherCalls = true
      }
      if (event.type === "finish") {
        const finish: ModelEvent = event.reason === "tool_calls" && !otherCalls ? { type: "finish", reason: "stop" } : event
        return [...release(), finish]
      }
      return [event]
    })
    return Stream.concat(mapped, Stream.suspend(() => Stream.fromIterable(release())))
  })
