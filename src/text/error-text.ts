import * as Cause from "effect/Cause"

/** The first line of what a failed or dead fiber's cause says, for a one-line message. */
export const causeLine = (cause: Cause.Cause<unknown>): string => Cause.pretty(cause).split("\n")[0] || "unknown error"

/** What a caught value says, for a one-line message: the `Error`'s message, or the value as text. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** A failed system call's code ("ENOENT", "EACCES"), or else what the error says. */
export const codeOf = (error: unknown): string => {
  const code = typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined
  return typeof code === "string" ? code : messageOf(error)
}
