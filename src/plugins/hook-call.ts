/**
 * Calling one plugin function: with a copy of its argument (a hook cannot reach the host's own
 * objects), under a time budget, and with its result copied once before anything checks it (a
 * getter or proxy cannot answer the check one way and the host another). What the hook did
 * becomes a value; nothing it throws escapes.
 */
import * as Effect from "effect/Effect"
import { firstLine } from "./error-line.ts"

/** How long one hook call may take before it is skipped (its promise is left to finish on its own). */
export const hookBudgetMs = 5_000

export type HookOutcome =
  | { readonly _tag: "Returned"; readonly value: unknown }
  | { readonly _tag: "Threw"; readonly message: string }
  | { readonly _tag: "TimedOut"; readonly budgetMs: number }

class Uncopyable extends Error {}

const copyResult = (value: unknown): unknown => {
  if (value === undefined || value === null || typeof value !== "object") return value
  try {
    return structuredClone(value)
  } catch (error) {
    throw new Uncopyable(`it returned a value Crystal cannot copy (${firstLine(error)}); return plain data`)
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"

const settled = (value: unknown): HookOutcome => {
  try {
    return { _tag: "Returned", value: copyResult(value) }
  } catch (error) {
    return { _tag: "Threw", message: firstLine(error) }
  }
}

/**
 * `invoke` calls the hook (as a method of its object); `argument` is copied for it. A hook that
 * answers at once costs no timer; a promise gets `budgetMs` to settle. (A hook that never yields,
 * a synchronous endless loop, cannot be stopped from inside the process.)
 */
export const callHook = (invoke: (argument: unknown) => unknown, argument: unknown, budgetMs: number): Effect.Effect<HookOutcome> =>
  Effect.suspend(() => {
    let returned: unknown
    try {
      returned = invoke(structuredClone(argument))
    } catch (error) {
      return Effect.succeed<HookOutcome>({ _tag: "Threw", message: firstLine(error) })
    }
    if (!isThenable(returned)) return Effect.succeed(settled(returned))
    const pending = returned
    return Effect.async<HookOutcome>((resume) => {
      const timer = setTimeout(() => resume(Effect.succeed({ _tag: "TimedOut", budgetMs })), budgetMs)
      pending.then(
        (value) => {
          clearTimeout(timer)
          resume(Effect.succeed(settled(value)))
        },
        (error: unknown) => {
          clearTimeout(timer)
          resume(Effect.succeed({ _tag: "Threw", message: firstLine(error) }))
        }
      )
      return Effect.sync(() => clearTimeout(timer))
    })
  })
