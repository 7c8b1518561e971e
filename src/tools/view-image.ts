/**
 * view_image (SPEC I7): a workspace image, read through the read fence, becomes an image of the
 * conversation exactly as a pasted one does (a marker number, the model's limits, the media
 * store) and is attached to the tool result, so the model sees it on its next request.
 */
import * as Effect from "effect/Effect"
import type { ImageSize } from "../media/image-size.ts"
import { readImageForTool } from "./image-file.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"
import type { AttachedImage } from "./tool-images.ts"

const pixels = (size: ImageSize): string => `${size.width}×${size.height}`

/** "[Image #4] src/logo.png (640×480, image/png)", and how it was shrunk when it was. */
export const viewImageText = (attached: AttachedImage, display: string): string => {
  const { ref, size, resizedFrom } = attached
  const facts = [...(size === undefined ? [] : [pixels(size)]), ref.mime]
  const shrunk = resizedFrom === undefined ? "" : `; shrunk from ${pixels(resizedFrom)} to fit what ${attached.model} takes`
  return `${ref.marker ?? "[Image]"} ${display} (${facts.join(", ")}${shrunk})`
}

export const viewImage = (args: { readonly path: string }, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    const images = context.images
    if (images === undefined) return yield* new ToolError({ message: "view_image cannot attach images in this session." })
    const { bytes, display } = yield* readImageForTool(args.path, context)
    const attached = yield* images.attach(bytes, display)
    return { text: viewImageText(attached, display), images: [attached.ref] }
  })
