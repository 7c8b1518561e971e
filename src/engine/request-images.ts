/**
 * The image bytes a request carries (SPEC I2/I4). Only a model that takes images gets any: for
 * any other, every image stays its marker text. An image whose media file is missing or altered
 * is left to its marker too, with one note per image and session (restoring the file repairs the
 * session: its reference is kept). Images a provider refused earlier are not offered again.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { MediaStore } from "../media/media-store.ts"
import type { ModelEntry } from "../providers/catalog.ts"
import type { ImageBytes, ModelRequest } from "../providers/model-client.ts"
import { newItemId } from "../session/ids.ts"
import type { ImageRef, TranscriptItem } from "../session/items.ts"
import { Conversation } from "./conversation.ts"
import { Renderer } from "./renderer.ts"

export const imageRefsOf = (item: TranscriptItem): ReadonlyArray<ImageRef> =>
  item._tag === "user" || item._tag === "tool_result" ? (item.images ?? []) : []

const unavailableNote = (ref: ImageRef, why: string): string =>
  `${ref.marker ?? "An image"} is not sent to the model: ${why}; its marker stays in the conversation (put the file back to send it again)`

export const requestImages = (
  items: ReadonlyArray<TranscriptItem>,
  model: ModelEntry
): Effect.Effect<ReadonlyMap<string, ImageBytes> | undefined, never, MediaStore | Conversation | Renderer> =>
  Effect.gen(function* () {
    if (!model.capabilities.imageInput) return undefined
    const refs = new Map(items.flatMap(imageRefsOf).map((ref) => [ref.sha256, ref] as const))
    if (refs.size === 0) return undefined
    const conversation = yield* Conversation
    const rejected = new Set((yield* conversation.document).rejectedImages ?? [])
    const media = yield* MediaStore
    const renderer = yield* Renderer
    const images = new Map<string, ImageBytes>()
    for (const [sha256, ref] of refs) {
      if (rejected.has(sha256)) continue
      const base64 = yield* Effect.either(media.base64ForRequest(sha256))
      if (Either.isRight(base64)) {
        images.set(sha256, { mime: ref.mime, base64: base64.right })
      } else if (yield* conversation.firstTime(`unavailable image ${sha256}`)) {
        // One note per image and session, not one per request.
        const note = unavailableNote(ref, base64.left.message)
        yield* conversation.append({ _tag: "note", id: newItemId(), text: note })
        yield* renderer.note(note)
      }
    }
    return images
  })

/** Every image the session holds, by content hash: what a plugin may name. */
export const heldImages = (items: ReadonlyArray<TranscriptItem>): ReadonlyMap<string, ImageRef> =>
  new Map(items.flatMap(imageRefsOf).map((ref) => [ref.sha256, ref] as const))

/** A request a plugin restructured, with the image bytes of the items it has now. */
export const withImages = (request: ModelRequest) =>
  Effect.map(requestImages(request.items, request.model), (images) => {
    const { images: _before, ...rest } = request
    return images === undefined ? rest : { ...rest, images }
  })
