/**
 * A `session/prompt`'s content blocks as one Crystal message: text as it is, images attached like
 * a pasted image (their markers after the text), a resource link as a line naming it, an embedded
 * resource's text inside a block naming its URI (an embedded image is attached).
 */
import * as Effect from "effect/Effect"
import type { ContentBlock } from "@agentclientprotocol/sdk"
import { attachImageBytes, reserveImageNumber } from "../engine/attach-image.ts"
import type { UserInput } from "../engine/turn.ts"
import type { ImageRef } from "../session/items.ts"

const isImageMime = (mime: string | null | undefined): boolean => mime?.startsWith("image/") === true

/** The parts of a prompt in order: text, or an image to attach (base64, as ACP carries it). */
type Part = { readonly text: string } | { readonly image: string; readonly source: string }

export const promptParts = (blocks: ReadonlyArray<ContentBlock>): ReadonlyArray<Part> =>
  blocks.flatMap((block): ReadonlyArray<Part> => {
    switch (block.type) {
      case "text":
        return [{ text: block.text }]
      case "image":
        return [{ image: block.data, source: block.uri ?? "an image from the editor" }]
      case "resource_link":
        return [{ text: `[${block.title ?? block.name}](${block.uri})` }]
      case "resource": {
        const resource = block.resource
        if ("text" in resource) return [{ text: `<resource uri="${resource.uri}">\n${resource.text}\n</resource>` }]
        if (isImageMime(resource.mimeType)) return [{ image: resource.blob, source: resource.uri }]
        return [{ text: `[${resource.uri}] (binary ${resource.mimeType ?? "content"}, not included)` }]
      }
      case "audio":
        return [{ text: "(an audio clip, which Crystal cannot take)" }]
    }
  })

export const promptInput = (blocks: ReadonlyArray<ContentBlock>) =>
  Effect.gen(function* () {
    const texts: Array<string> = []
    const images: Array<ImageRef> = []
    for (const part of promptParts(blocks)) {
      if ("text" in part) {
        texts.push(part.text)
        continue
      }
      const number = yield* reserveImageNumber
      images.push(yield* attachImageBytes(Buffer.from(part.image, "base64"), part.source, number))
    }
    const text = texts.join("\n\n")
    if (images.length === 0) return { text } satisfies UserInput
    return { text: `${text}\n\n${images.map((image) => image.marker).join(" ")}`, images } satisfies UserInput
  })
