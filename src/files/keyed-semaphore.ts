/**
 * One task at a time per key (a file's real path, for edit and write), in the order they asked,
 * owned by whoever makes it (a session's tools): nothing is shared between owners, and a key's
 * entry is dropped once nothing holds or waits for it.
 *
 * A task's caller may be interrupted (a cancelled turn) at any point. While it waits for its turn,
 * it leaves the queue and its task never runs. Once its task has started, the task runs to its end
 * (a file half-written by a cancelled call would be worse than one written after it), the caller
 * returns at once, and the next task still waits for this one to end.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"

export class KeyedSemaphore {
  /** Per key, what the last task to ask completes when the next one may start. */
  private readonly tails = new Map<string, Deferred.Deferred<void>>()

  /** Keys with a task running or waiting: 0 when idle. */
  get size(): number {
    return this.tails.size
  }

  /** `task`, run after every earlier task on `key` has ended. */
  withPermit(key: string): <A, E, R>(task: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> {
    return (task) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(this, function* () {
          const previous = this.tails.get(key)
          const mine = yield* Deferred.make<void>()
          this.tails.set(key, mine)
          const turn = yield* Effect.exit(restore(previous === undefined ? Effect.void : Deferred.await(previous)))
          if (Exit.isFailure(turn)) {
            // Interrupted in the queue: whoever comes next waits for the one before us instead.
            yield* previous === undefined ? Deferred.succeed(mine, undefined) : Deferred.completeWith(mine, Deferred.await(previous))
            if (this.tails.get(key) === mine) {
              if (previous === undefined) this.tails.delete(key)
              else this.tails.set(key, previous)
            }
            return yield* Effect.failCause(turn.cause)
          }
          const running = yield* Effect.forkDaemon(task.pipe(Effect.ensuring(this.release(key, mine))))
          return yield* restore(Fiber.join(running))
        })
      )
  }

  private release(key: string, mine: Deferred.Deferred<void>): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.tails.get(key) === mine) this.tails.delete(key)
      return Deferred.succeed(mine, undefined)
    })
  }
}
