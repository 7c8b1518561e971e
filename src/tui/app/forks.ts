/**
 * Forks for the work `perform` starts. `perform` may run inside a turn's `after`, a finalizer, and
 * a fork inherits its parent's interruptibility: forked there as it was, a status read could not be
 * interrupted when the app's scope closes (leaving waited for it), and a queued command could not
 * be cut short inside (a timeout or a race waited for its loser). These make the work
 * interruptible again wherever it was forked from.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** `work` in `scope`: interrupted when the scope closes. */
export const forkInterruptibleIn = (work: Effect.Effect<unknown>, scope: Scope.Scope): Effect.Effect<void> =>
  Effect.asVoid(Effect.forkIn(Effect.interruptible(work), scope))

/** `work` detached from every scope: it ends on its own. */
export const forkInterruptibleDaemon = (work: Effect.Effect<unknown>): Effect.Effect<void> => Effect.asVoid(Effect.forkDaemon(Effect.interruptible(work)))
