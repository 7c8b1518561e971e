/**
 * Putting an image into the conversation (SPEC I4/I5): the marker number is taken first (so a
 * paste waiting on the OS clipboard reader holds its place, and a failed one leaves a gap), then
 * the bytes are checked and kept in the MediaStore before anything refers to them. What comes
 * back is the reference a message carries; the marker text is what the operator and the model see.
 */
import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ImageTooLarge, type MediaError } from "../media/errors.ts"
import { fitImage, type ImageOverLimit } from "../media/image-fit.ts"
import { maxImageBytes, MediaStore } from "../media/media-store.ts"
import { imageLimitsOf } from "../providers/catalog.ts"
import { Providers } from "../providers/providers.ts"
import type { ImageRef } from "../session/items.ts"
import { Conversation } from "./conversation.ts"
import { messageOf } from "../text/error-text.ts"

/** The active model takes no images, or an image file cannot be read. */
export class ImageRefused extends Schema.TaggedError<ImageRefused>()("ImageRefused", {
  message: Schema.String
}) {}

export type AttachError = MediaError | ImageRefused | ImageOverLimit

export const imageMarker = (number: number): string => `[Image #${number}]`

/** The next `[Image #N]` number of this session, taken for good. */
export const reserveImageNumber: Effect.Effect<number, never, Conversation> = Effect.gen(function* () {
  const conversation = yield* Conversation
  let number = 0
  yield* conversation.update((doc) => {
    number = (doc.imageCount ?? 0) + 1
    return { ...doc, imageCount: number }
  })
  return number
})

/** SPEC I3: a refusal before anything is sent, naming the model and what to do. */
export const requireImageModel: Effect.Effect<void, ImageRefused, Providers> = Effect.gen(function* () {
  const { entry } = (yield* Providers).current()
  if (!entry.capabilities.imageInput) {
    return yield* new ImageRefused({
      message: `${entry.ref} does not take images (imageInput is not set for it); switch to a model with "imageInput": true in config.json`
    })
  }
})

/**
 * Fits `bytes` to the active model's limits and keeps them, for marker `number` (reserved by the
 * caller): the one way an image enters a session, from a paste, a file or a tool.
 */
export const keepImage = (bytes: Uint8Array, source: string, number: number) =>
  Effect.gen(function* () {
    yield* requireImageModel
    const { entry } = (yield* Providers).current()
    const fitted = yield* fitImage(bytes, source, { model: entry.ref, limits: imageLimitsOf(entry) })
    const stored = yield* (yield* MediaStore).put(fitted.bytes, source)
    const ref: ImageRef = { sha256: stored.sha256, mime: stored.mime, marker: imageMarker(number) }
    return { ref, size: stored.size, resizedFrom: fitted.resizedFrom, model: entry.ref }
  }).pipe(Effect.withSpan("attachImage", { attributes: { source, bytes: bytes.length } }))

/** Keeps `bytes` and returns the reference for marker `number` (reserved by the caller). */
export const attachImageBytes = (bytes: Uint8Array, source: string, number: number) =>
  Effect.map(keepImage(bytes, source, number), (kept) => kept.ref)

/**
 * An image file the operator named (`--image`, a dropped path): its size is checked before it
 * is read, so a 4 GiB file is refused without loading it.
 */
export const readImageFile = (file: string): Effect.Effect<Uint8Array, ImageRefused | ImageTooLarge> =>
  Effect.tryPromise({
    try: async () => {
      const handle = await fs.open(file, "r")
      try {
        const { size, isFile } = await handle.stat().then((stat) => ({ size: stat.size, isFile: stat.isFile() }))
        if (!isFile) throw new Error("not a regular file")
        if (size > maxImageBytes) return new ImageTooLarge({ source: file, bytes: size, limit: maxImageBytes })
        // A Buffer is a Uint8Array: no copy (copying 5 MiB through the Uint8Array constructor costs ~20 ms under Bun).
        return await handle.readFile()
      } finally {
        await handle.close()
      }
    },
    catch: (error) => new ImageRefused({ message: `cannot read the image ${file} (${readProblem(error)})` })
  }).pipe(Effect.flatMap((result) => (result instanceof Uint8Array ? Effect.succeed(result) : Effect.fail(result))))

const readProblem = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code
  if (code === "ENOENT") return "no such file"
  if (code === "EACCES") return "permission denied"
  if (code === "EISDIR") return "it is a directory"
  return messageOf(error)
}

/** Reserve, read, keep: the whole attach of a file, in the order that leaves a gap on failure. */
export const attachImageFile = (file: string): Effect.Effect<ImageRef, AttachError, Conversation | MediaStore | Providers> =>
  Effect.gen(function* () {
    const number = yield* reserveImageNumber
    const bytes = yield* readImageFile(file)
    return yield* attachImageBytes(bytes, file, number)
  })
