/**
 * `"output": "content"` (SPEC X2, I6) and module results: text plus images, each image base64
 * bytes or a path in the workspace (read through the fence). Images join the conversation the way
 * view_image's do; a turn whose model takes no images gets a clear error instead.
 */
import * as Effect from "effect/Effect"
import type { ImageRef } from "../session/items.ts"
import { readImageForTool } from "../tools/image-file.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "../tools/tool.ts"

export interface ContentImage {
  readonly mediaType?: string | undefined
  readonly data?: string | undefined
  readonly path?: string | undefined
}

export interface ToolContent {
  readonly text: string
  readonly images: ReadonlyArray<ContentImage>
  readonly isError?: boolean | undefined
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** A result value (parsed stdout, a module's return) → content, or what is wrong with it. */
export const parseContent = (value: unknown, what: string): ToolContent | string => {
  if (typeof value === "string") return { text: value, images: [] }
  if (!isObject(value)) return `${what}: expected {"text": "...", "images": [...]}`
  const text = value["text"] ?? ""
  if (typeof text !== "string") return `${what}: "text" must be a string`
  const images = value["images"] ?? []
  if (!Array.isArray(images)) return `${what}: "images" must be a list`
  const parsed: Array<ContentImage> = []
  for (const [index, image] of images.entries()) {
    if (!isObject(image)) return `${what}: images[${index}] must be {"mediaType", "data"} or {"path"}`
    const data = image["data"]
    const file = image["path"]
    if (typeof data === "string") parsed.push({ data, mediaType: typeof image["mediaType"] === "string" ? image["mediaType"] : undefined })
    else if (typeof file === "string") parsed.push({ path: file })
    else return `${what}: images[${index}] needs "data" (base64) or "path" (a file in the workspace)`
  }
  const isError = value["isError"]
  return { text, images: parsed, isError: isError === true ? true : undefined }
}

const base64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/

/** The images attached to the session; text-only turns refuse with the tool's name in the message. */
export const attachContent = (toolName: string, content: ToolContent, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    if (content.images.length === 0) return { text: content.text, ...(content.isError === true ? { isError: true } : {}) }
    const images = context.images
    if (images === undefined) return yield* new ToolError({ message: `${toolName} returned images, but this session cannot attach images.` })
    const refs: Array<ImageRef> = []
    const lines: Array<string> = []
    for (const [index, image] of content.images.entries()) {
      let bytes: Uint8Array
      let source: string
      if (image.data !== undefined) {
        if (!base64.test(image.data)) return yield* new ToolError({ message: `${toolName}: images[${index}].data is not base64` })
        bytes = new Uint8Array(Buffer.from(image.data, "base64"))
        source = `${toolName} image ${index + 1}`
      } else {
        const file = yield* readImageForTool(image.path ?? "", context)
        bytes = file.bytes
        source = file.display
      }
      const attached = yield* images.attach(bytes, source).pipe(
        Effect.mapError((error) => new ToolError({ message: `${toolName} returned an image that cannot be attached: ${error.message}` }))
      )
      refs.push(attached.ref)
      lines.push(`${attached.ref.marker ?? "[Image]"} ${source} (${attached.ref.mime})`)
    }
    const text = [content.text, ...lines].filter((line) => line !== "").join("\n")
    return { text, images: refs, ...(content.isError === true ? { isError: true } : {}) }
  })
