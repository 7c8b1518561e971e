/**
 * describe_image (SPEC I7): a workspace image, read through the read fence, is shown to
 * config.json's imageModel in a side request; its answer is the tool's text. Nothing is stored:
 * neither the image nor the exchange enters the conversation.
 */
import * as Effect from "effect/Effect"
import { readImageForTool } from "./image-file.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"

export const describeImage = (
  args: { readonly path: string; readonly question?: string | undefined },
  context: ToolContext
): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    const describe = context.images?.describe
    if (describe === undefined) return yield* new ToolError({ message: 'describe_image needs "imageModel" in config.json (an image model as PROVIDER/MODEL).' })
    const { bytes, display } = yield* readImageForTool(args.path, context)
    const question = args.question?.trim()
    return { text: yield* describe(bytes, display, question === "" ? undefined : question) }
  })
