/** Reading an image file for a tool: through the read fence, its size checked before it is read. */
import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import { maxImageBytes } from "../media/media-store.ts"
import { statOrNotFound } from "./not-found.ts"
import { ToolError, type ToolContext, type ToolFailure } from "./tool.ts"
import { messageOf } from "../text/error-text.ts"
import { formatSizeOverLimit } from "../text/bytes.ts"

export interface ImageFile {
  readonly bytes: Uint8Array
  /** The path as the model and the operator see it. */
  readonly display: string
}

export const readImageForTool = (file: string, context: ToolContext): Effect.Effect<ImageFile, ToolFailure> =>
  Effect.gen(function* () {
    const { real, display } = yield* context.fence.resolve(file, "read")
    const bytes = yield* Effect.tryPromise({
      try: async () => {
        const stat = await statOrNotFound(context, real, display, "Image")
        if (stat.isDirectory()) throw new ToolError({ message: `${display} is a directory, not an image file.` })
        if (!stat.isFile()) throw new ToolError({ message: `${display} is not a regular file.` })
        if (stat.size > maxImageBytes) {
          const { size, limit } = formatSizeOverLimit(stat.size, maxImageBytes)
          throw new ToolError({ message: `${display} is too large: ${size}, the limit is ${limit}.` })
        }
        return new Uint8Array(await fs.readFile(real))
      },
      catch: (error) =>
        error instanceof ToolError ? error : new ToolError({ message: `cannot read ${display}: ${messageOf(error)}` })
    })
    return { bytes, display }
  })
