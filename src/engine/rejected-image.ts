/**
 * One bad image never breaks a session (issue 12): when a provider refuses a request because of
 * an image, the newest message's images are marked refused (they then travel as their marker
 * text only, in this request and every later one) and the request is made once more, with a note.
 * Any other failure, or a second refusal, is the turn's error as before.
 */
import * as Effect from "effect/Effect"
import type { ProviderError } from "../providers/errors.ts"
import { newItemId } from "../session/ids.ts"
import { Conversation } from "./conversation.ts"
import { imageRefsOf } from "./request-images.ts"
import { Renderer } from "./renderer.ts"

const imageWords = /\bimages?\b|image_url|inline_?data|media[ _]type|base64|\bvision\b|picture|\bpixels?\b/i

/** A refusal of the request itself (not a limit, not the server) that talks about images. */
export const isImageRejection = (error: ProviderError): boolean =>
  (error.kind === "bad_request" || error.kind === "unsupported" || error.status === 413 || error.status === 422) && imageWords.test(error.message)

const markNewestImagesRefused = (error: ProviderError) =>
  Effect.gen(function* () {
    const conversation = yield* Conversation
    const doc = yield* conversation.document
    const rejected = new Set(doc.rejectedImages ?? [])
    const newest = [...doc.items].reverse().map(imageRefsOf).find((refs) => refs.some((ref) => !rejected.has(ref.sha256)))
    if (newest === undefined) return false
    const refused = newest.filter((ref) => !rejected.has(ref.sha256))
    yield* conversation.update((current) => ({ ...current, rejectedImages: [...(current.rejectedImages ?? []), ...refused.map((ref) => ref.sha256)] }))
    const markers = refused.map((ref) => ref.marker ?? "an image").join(", ")
    const note = `${error.provider} refused the request because of ${markers} (${error.message}); sent again with the marker text instead of the image`
    yield* conversation.append({ _tag: "note", id: newItemId(), text: note })
    yield* conversation.save
    yield* (yield* Renderer).note(note)
    return true
  })

const isProviderError = (error: unknown): error is ProviderError =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "ProviderError"

export const rejectedImageRetry = <A, E, R>(respond: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Conversation | Renderer> =>
  Effect.catchIf(
    respond,
    (error): error is E & ProviderError => isProviderError(error) && isImageRejection(error),
    (error) => Effect.flatMap(markNewestImagesRefused(error), (marked) => (marked ? respond : Effect.fail(error)))
  )
