/**
 * Calling one plugin function: with a copy of its argument (a hook cannot reach the host's own
 * objects), under a time budget, and with its result copied once before anything checks it (a
 * getter or proxy cannot answer the check one way and the host another). What the hook did
 * becomes a value; nothing it throws escapes.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** How long one hook call may take before it is skipped (its promise is left to finish on its own). */
export const hookBudgetMs = 5_000

export type HookOutcome =
  | { readonly _tag: "Returned"; readonly value: unknown }
  | { readonly _tag: "Threw"; readonly message: string }
  | { readonly _tag: "TimedOut"; readonly budgetMs: number }

/** An error's first line, without a stack: what a note can carry. */
export const firstLine = (error: unknown): string => {
  const text = error instanceof Error ? error.message : typeof error === "string" ? error : String(error)
  const line = text.split("\n", 1)[0]?.trim() ?? ""
  return line === "" ? (error instanceof Error ? error.name : "no message") : line.slice(0, 300)
}

class Uncopyable extends Error {}

const copyResult = (value: unknown): unknown => {
  if (value === undefined || value === null || typeof value !== "object") return value
  try {
    return structuredClone(value)
  } catch (error) {
    throw new Uncopyable(`it returned a value Crystal cannot copy (${firstLine(error)}); return plain data`)
  }
}

/** `invoke` calls the hook (as a method of its object); `argument` is copied for it. */
export const callHook = (invoke: (argument: unknown) => unknown, argument: unknown, budgetMs: number): Effect.Effect<HookOutcome> =>
  Effect.tryPromise({
    try: () =>
      Promise.resolve()
        .then(() => invoke(structuredClone(argument)))
        .then(copyResult),
    catch: (error) => error
  }).pipe(
    Effect.map((value): HookOutcome => ({ _tag: "Returned", value })),
    Effect.catchAll((error) => Effect.succeed<HookOutcome>({ _tag: "Threw", message: firstLine(error) })),
    Effect.timeoutTo({ duration: Duration.millis(budgetMs), onSuccess: (outcome) => outcome, onTimeout: (): HookOutcome => ({ _tag: "TimedOut", budgetMs }) })
  )
