/**
 * The BackgroundBash service (SPEC T5): the session's background tasks, living in the scope the
 * layer is built in, so closing the session kills every task. The live layer costs nothing until
 * the first call: the implementation (background.ts, with node:child_process and the process-tree
 * code) is imported and made then, in that same scope.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type { BackgroundBashOptions, BackgroundBashShape } from "./background.ts"
import { DEFAULT_GRACE_MS, DEFAULT_LOG_BUFFER_BYTES, DEFAULT_MAX_TASKS } from "./limits.ts"

export type { BackgroundBashOptions, BackgroundBashShape } from "./background.ts"

/** Made on first use in `scope`; until then nothing runs and nothing is loaded. */
const lazyBackgroundBash = (options: BackgroundBashOptions, scope: Scope.Scope): Effect.Effect<BackgroundBashShape> =>
  Effect.gen(function* () {
    let made: BackgroundBashShape | undefined
    const service = yield* Effect.cached(
      Effect.promise(() => import("./background.ts")).pipe(
        Effect.flatMap((module) => Scope.extend(module.makeBackgroundBash(options), scope)),
        Effect.tap((real) => Effect.sync(() => (made = real)))
      )
    )
    const on = <A, E>(use: (real: BackgroundBashShape) => Effect.Effect<A, E>) => Effect.flatMap(service, use)
    return {
      maxTasks: options.maxTasks ?? DEFAULT_MAX_TASKS,
      timeoutSeconds: options.timeoutSeconds,
      bufferBytes: options.bufferBytes ?? DEFAULT_LOG_BUFFER_BYTES,
      graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
      // The real service's methods carry the spans; these only forward.
      start: (command, startOptions) => on((real) => real.start(command, startOptions)),
      status: (id) => on((real) => real.status(id)),
      // Nothing started yet: no tasks, and no reason to load anything to say so.
      list: Effect.suspend(() => (made === undefined ? Effect.succeed([]) : made.list)),
      logs: (id, request) => on((real) => real.logs(id, request)),
      stop: (id) => on((real) => real.stop(id)),
      sandbox: {
        spawn: (program, request, command) => on((real) => real.sandbox.spawn(program, request, command)),
        sandboxes: () => made?.sandbox.sandboxes() ?? []
      }
    }
  })

export class BackgroundBash extends Context.Tag("crystal/BackgroundBash")<BackgroundBash, BackgroundBashShape>() {
  /** The live service in the layer's scope (the session's, when provided to a session), made on first use. */
  static readonly make = (options: BackgroundBashOptions): Effect.Effect<BackgroundBashShape, never, Scope.Scope> =>
    Effect.flatMap(Effect.scope, (scope) => lazyBackgroundBash(options, scope))

  static readonly layer = (options: BackgroundBashOptions): Layer.Layer<BackgroundBash> => Layer.scoped(BackgroundBash, BackgroundBash.make(options))
}
