/**
 * Images in the input box (SPEC I4/I5, seed 003): Ctrl+V (or Alt+V) pastes the clipboard's image,
 * a dropped image path attaches that file; either becomes an `[Image #N]` atomic span whose id
 * maps to the stored image. The engine owns numbering and storage; this owns the spans.
 *
 * While an attach runs, the keys typed after it wait and are then handled in order (so Ctrl+V
 * then Enter sends the prompt with the image); Ctrl+C cancels the attach and drops them. The
 * number is reserved before the OS reader is waited on, so a failed paste leaves a gap.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type { SessionServices } from "../../layers/session.ts"
import { attachImageBytes, attachImageFile, requireImageModel, reserveImageNumber } from "../engine/attach-image.ts"
import { readClipboardImage } from "../media/clipboard.ts"
import { Providers } from "../providers/providers.ts"
import type { ImageRef } from "../session/items.ts"
import { droppedImage } from "./dropped-path.ts"
import { insertAtomic, type EditorState } from "./editor-state.ts"
import type { Key } from "./keys.ts"

export interface ImageInputHost {
  readonly services: () => Context.Context<SessionServices>
  readonly editor: () => EditorState
  readonly setEditor: (state: EditorState) => void
  /** Handles a key that waited behind an attach. */
  readonly replay: (key: Key) => void
  /** One line for the operator: why a paste inserted nothing, or how it was taken. */
  readonly note: (message: string) => void
  readonly render: () => void
}

/** Ctrl+V, and Alt+V for terminals that keep Ctrl+V for their own paste. */
export const isImagePasteKey = (key: Key): boolean =>
  (key.type === "ctrl" && key.letter === "v") || (key.type === "alt" && key.char.toLowerCase() === "v")

const clipboardAttach = Effect.gen(function* () {
  // A text-only model refuses before a number is taken or the clipboard read.
  yield* requireImageModel
  const number = yield* reserveImageNumber
  const image = yield* readClipboardImage()
  return yield* attachImageBytes(image.bytes, "the clipboard", number)
})

const fileAttach = (file: string) => Effect.zipRight(requireImageModel, attachImageFile(file))

export const makeImageInput = (host: ImageInputHost) => {
  const refs = new Map<number, ImageRef>()
  let nextId = 1
  let waiting: { readonly label: string; readonly keys: Array<Key>; readonly fiber: Fiber.RuntimeFiber<unknown, unknown> } | undefined

  const start = (label: string, work: Effect.Effect<ImageRef, { readonly message: string }, SessionServices>) => {
    const keys: Array<Key> = []
    const fiber = Effect.runFork(work.pipe(Effect.either, Effect.provide(host.services())))
    waiting = { label, keys, fiber }
    fiber.addObserver((exit) => {
      if (waiting?.fiber !== fiber) return
      waiting = undefined
      if (exit._tag === "Success") {
        const result = exit.value
        if (result._tag === "Right") {
          const id = nextId++
          refs.set(id, result.right)
          host.setEditor(insertAtomic(host.editor(), result.right.marker ?? "[Image]", id))
        } else host.note(result.left.message)
      } else if (!Cause.isInterruptedOnly(exit.cause)) {
        host.note(`the paste failed: ${Cause.pretty(exit.cause).split("\n")[0] ?? "unknown error"}`)
      }
      // Handled as if typed now; one of them may start another attach, behind which the rest wait.
      for (const key of keys) dispatch(key)
      host.render()
    })
  }

  const cancel = (): boolean => {
    const running = waiting
    if (running === undefined) return false
    waiting = undefined
    Effect.runFork(Fiber.interrupt(running.fiber))
    return true
  }

  /** Takes `key` when it is an image paste, or when an attach is running; false: not ours. */
  const take = (key: Key): boolean => {
    if (waiting !== undefined) {
      if (key.type === "ctrl" && key.letter === "c") {
        cancel()
        host.note("paste cancelled")
      } else waiting.keys.push(key)
      return true
    }
    if (isImagePasteKey(key)) {
      start("reading the clipboard…", clipboardAttach)
      return true
    }
    if (key.type === "paste") {
      const file = droppedImage(key.text)
      if (file === undefined) return false
      const { entry } = Context.get(host.services(), Providers).current()
      if (!entry.capabilities.imageInput) {
        // The path still means something to a model that reads files.
        host.note(`${entry.ref} does not take images: the path was pasted as text`)
        return false
      }
      start(`attaching ${file}…`, fileAttach(file))
      return true
    }
    return false
  }

  const dispatch = (key: Key) => {
    if (!take(key)) host.replay(key)
  }

  return {
    take,
    /** What runs now, for the live region ("reading the clipboard…"). */
    status: (): string | undefined => waiting?.label,
    /** The images of the spans in `state`, in the order they appear. */
    imagesOf: (state: EditorState): ReadonlyArray<ImageRef> =>
      state.spans.flatMap((span) => {
        const ref = span.id === undefined ? undefined : refs.get(span.id)
        return ref === undefined ? [] : [ref]
      }),
    /** Forgets the images whose spans are gone from `state` (deleted, sent, or cleared). */
    keepOnly: (state: EditorState) => {
      for (const id of [...refs.keys()]) if (!state.spans.some((span) => span.id === id)) refs.delete(id)
    },
    cancel
  }
}

export type ImageInput = ReturnType<typeof makeImageInput>
