/**
 * Images in the input box (SPEC I4/I5, seed 003): Ctrl+V (or Alt+V) pastes the clipboard's image,
 * a dropped image path attaches that file; either becomes an `[Image #N]` atomic span whose id
 * maps to the stored image (the app state keeps that map). The engine owns numbering and storage;
 * this runs the attach.
 *
 * While an attach runs, the keys typed after it wait and are then handled in order (so Ctrl+V
 * then Enter sends the prompt with the image); Ctrl+C cancels the attach and drops them. The
 * number is reserved before the OS reader is waited on, so a failed paste leaves a gap.
 * All of this is called from the app's one input fiber, in the order keys arrived; an attach's
 * end comes back through the same inbox, so keys typed before it ended are still held.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type { SessionServices } from "../../layers/session.ts"
import { attachImageBytes, attachImageFile, requireImageModel, reserveImageNumber } from "../engine/attach-image.ts"
import { readClipboardImage } from "../media/clipboard.ts"
import { Providers } from "../providers/providers.ts"
import type { ImageRef } from "../session/items.ts"
import { causeLine } from "../text/error-text.ts"
import { droppedImage } from "./dropped-path.ts"
import type { Key } from "./keys.ts"

/** An attach has ended: the image, or one line saying why there is none. */
export interface AttachEnded {
  readonly _tag: "AttachEnded"
  readonly attach: number
  readonly outcome: { readonly image: ImageRef } | { readonly note: string }
}

/** Whether the key was the image input's, and a line for the operator when there is one to say. */
export interface Taken {
  readonly taken: boolean
  readonly note?: string
}

export interface ImageInput {
  /** Takes `key` when it is an image paste, or when an attach is running. */
  readonly take: (key: Key, services: Context.Context<SessionServices>) => Effect.Effect<Taken>
  /** The attach has ended: the keys that waited behind it; undefined when it was cancelled meanwhile. */
  readonly ended: (end: AttachEnded) => ReadonlyArray<Key> | undefined
  /** What runs now, for the live region ("reading the clipboard…"). */
  readonly status: () => string | undefined
  readonly cancel: Effect.Effect<void>
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

const outcomeOf = (exit: Exit.Exit<ImageRef, { readonly message: string }>): AttachEnded["outcome"] | undefined => {
  if (Exit.isSuccess(exit)) return { image: exit.value }
  if (Cause.isInterruptedOnly(exit.cause)) return undefined
  const failure = Cause.failureOption(exit.cause)
  return { note: failure._tag === "Some" ? failure.value.message : `the paste failed: ${causeLine(exit.cause)}` }
}

const notOurs: Taken = { taken: false }
const notOursNow = Effect.succeed(notOurs)
const takenNow = Effect.succeed<Taken>({ taken: true })

/** Attaches run in the enclosing scope; their ends are offered to `inbox`. */
export const makeImageInput = (inbox: Queue.Enqueue<AttachEnded>): Effect.Effect<ImageInput, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    let attaches = 0
    let waiting: { readonly attach: number; readonly label: string; readonly keys: Array<Key>; readonly fiber: Fiber.RuntimeFiber<unknown, unknown> } | undefined

    const start = (label: string, work: Effect.Effect<ImageRef, { readonly message: string }, SessionServices>, services: Context.Context<SessionServices>) =>
      Effect.gen(function* () {
        const attach = ++attaches
        const fiber = yield* work.pipe(
          Effect.provide(services),
          Effect.onExit((exit) => {
            const outcome = outcomeOf(exit)
            return outcome === undefined ? Effect.void : Queue.offer(inbox, { _tag: "AttachEnded", attach, outcome })
          }),
          Effect.forkIn(scope)
        )
        waiting = { attach, label, keys: [], fiber }
        return { taken: true }
      })

    const cancel = Effect.suspend(() => {
      const running = waiting
      waiting = undefined
      return running === undefined ? Effect.void : Fiber.interruptFork(running.fiber)
    })

    const attachFor = Effect.fn("ImageInput.attach")(function* (key: Key, services: Context.Context<SessionServices>) {
      if (isImagePasteKey(key)) return yield* start("reading the clipboard…", clipboardAttach, services)
      const file = key.type === "paste" ? droppedImage(key.text) : undefined
      if (file === undefined) return notOurs
      const { entry } = Context.get(services, Providers).current()
      // The path still means something to a model that reads files.
      if (!entry.capabilities.imageInput) return { taken: false, note: `${entry.ref} does not take images: the path was pasted as text` }
      return yield* start(`attaching ${file}…`, fileAttach(file), services)
    })

    // Every key passes here: most are not ours, and say so without the cost of a traced call.
    const take = (key: Key, services: Context.Context<SessionServices>): Effect.Effect<Taken> =>
      Effect.suspend(() => {
        if (waiting === undefined) return isImagePasteKey(key) || key.type === "paste" ? attachFor(key, services) : notOursNow
        if (key.type === "ctrl" && key.letter === "c") return Effect.as(cancel, { taken: true, note: "paste cancelled" })
        waiting.keys.push(key)
        return takenNow
      })

    const ended = (end: AttachEnded): ReadonlyArray<Key> | undefined => {
      if (waiting?.attach !== end.attach) return undefined
      const { keys } = waiting
      waiting = undefined
      return keys
    }

    return { take, ended, status: () => waiting?.label, cancel }
  })
