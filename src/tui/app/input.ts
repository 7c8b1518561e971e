/**
 * The app's one input fiber. What comes from outside Effect (the terminal's bytes, Ctrl+C seen by
 * a dialog) and the end of an image attach are offered to one inbox and handled here, one at a
 * time and in the order they came: a key typed behind Ctrl+V waits for the paste, then is handled
 * as if typed then.
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type { SessionServices } from "../../../layers/session.ts"
import type { Palette } from "../../terminal/colors.ts"
import { causeLine } from "../../text/error-text.ts"
import type { AttachEnded, ImageInput } from "../image-input.ts"
import { decodeKeys, type Key } from "../keys.ts"
import { keyEvent } from "./key-actions.ts"
import type { LiveRegion } from "./live.ts"
import type { AppEvent } from "./state.ts"
import type { Store } from "./store.ts"

export type AppInput =
  /** Bytes from the terminal, as read. */
  | { readonly _tag: "Data"; readonly data: string }
  /** Ctrl+C inside a dialog: the turn it belongs to is cancelled. */
  | { readonly _tag: "CancelTurn" }
  | AttachEnded

export interface InputParts {
  readonly store: Store
  readonly live: LiveRegion
  readonly palette: Palette
  readonly imageInput: ImageInput
  readonly handle: (event: AppEvent) => Effect.Effect<void>
  readonly services: () => Context.Context<SessionServices>
}

/**
 * `input` (readInput) until interrupted; should it die (a throw in the key path), the app is told,
 * so it says so and leaves with 1 rather than hang in raw mode with no key handled, Ctrl+C included.
 */
export const superviseInput = (input: Effect.Effect<never>, handle: (event: AppEvent) => Effect.Effect<void>): Effect.Effect<void> =>
  input.pipe(Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : handle({ _tag: "InputBroke", reason: causeLine(cause) }))))

/** Handles what `inbox` brings until interrupted. */
export const readInput = (inbox: Queue.Dequeue<AppInput>, parts: InputParts): Effect.Effect<never> => {
  const { store, live, palette, imageInput, handle } = parts
  const note = (text: string) => live.commit([palette.yellow(text)])

  /** Not Effect.gen: every key passes here, and most change the editor only. */
  const onKey = (key: Key): Effect.Effect<void> =>
    Effect.flatMap(imageInput.take(key, parts.services()), (taken) => {
      if (taken.note !== undefined) note(taken.note)
      if (taken.taken || store.get().exiting) return Effect.void
      const event = keyEvent(store.get(), key, Date.now())
      return event === undefined ? Effect.void : handle(event)
    })

  const attachEnded = (end: AttachEnded) =>
    Effect.gen(function* () {
      const waited = imageInput.ended(end)
      if (waited === undefined) return
      if ("image" in end.outcome) yield* handle({ _tag: "ImageAttached", image: end.outcome.image })
      else note(end.outcome.note)
      for (const key of waited) yield* onKey(key)
      live.render()
    })

  const data = (pending: string, read: string): Effect.Effect<string> => {
    const decoded = decodeKeys(pending + read)
    return Effect.forEach(decoded.keys, (key) => Effect.suspend(() => (store.get().exiting ? Effect.void : onKey(key))), { discard: true }).pipe(
      Effect.map(() => {
        if (!store.get().exiting) live.render()
        return decoded.rest
      })
    )
  }

  /** `pending`: bytes of a sequence (or a paste) the last read cut off. */
  const step = (pending: string, input: AppInput): Effect.Effect<string> => {
    switch (input._tag) {
      case "Data":
        return data(pending, input.data)
      case "CancelTurn":
        return Effect.as(handle({ _tag: "CancelAsked" }), pending)
      case "AttachEnded":
        return Effect.as(attachEnded(input), pending)
    }
  }

  return Effect.iterate("", { while: () => true, body: (pending) => Effect.flatMap(Queue.take(inbox), (input) => step(pending, input)) }).pipe(
    Effect.zipRight(Effect.never)
  )
}
