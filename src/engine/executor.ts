import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { describeParseError } from "../config/load.ts"
import type { ToolCall } from "../session/items.ts"
import type { Tool, ToolOutput } from "../tools/tool.ts"
import type { ToolboxShape } from "./toolbox.ts"

const failure = (text: string): ToolOutput => ({ text, isError: true })

const decoders = new WeakMap<Tool, (input: unknown) => Either.Either<unknown, ParseError>>()

const decoderFor = (tool: Tool) => {
  let decode = decoders.get(tool)
  if (decode === undefined) {
    // params.ts only builds context-free schemas; the catalog type just cannot say so.
    const schema = tool.parameters.schema as unknown as Schema.Schema<unknown>
    decode = Schema.decodeUnknownEither(schema, { errors: "all" })
    decoders.set(tool, decode)
  }
  return decode
}

/** The one place where anything a tool throws becomes a result the model reads (SPEC A4). */
const describeDefect = (tool: Tool, cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const detail = error instanceof Error ? error.message : String(error)
  return `${tool.name} failed unexpectedly: ${detail}`
}

/**
 * Runs one tool call and always produces an output: unknown tools, malformed arguments, tool
 * errors and defects all become error results the model can act on. Interruption is not caught.
 */
export const executeToolCall = (call: ToolCall, toolbox: ToolboxShape): Effect.Effect<ToolOutput> => {
  const tool = toolbox.tools.find((candidate) => candidate.name === call.name)
  if (tool === undefined) {
    const names = toolbox.tools.map((candidate) => candidate.name).join(", ")
    return Effect.succeed(failure(`there is no tool named '${call.name}'; the available tools are: ${names}`))
  }
  if (typeof call.arguments === "string") {
    return Effect.succeed(failure(`${tool.name}: the arguments were not valid JSON; send one JSON object matching the tool's schema`))
  }
  const decoded = decoderFor(tool)(call.arguments ?? {})
  if (Either.isLeft(decoded)) {
    return Effect.succeed(failure(`${tool.name}: invalid arguments: ${describeParseError(decoded.left).join("; ")}`))
  }
  return tool.run(decoded.right as never, toolbox.context).pipe(
    Effect.catchTag("ToolError", (error) => Effect.succeed(failure(error.message))),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : Effect.succeed(failure(describeDefect(tool, cause)))
    )
  )
}
