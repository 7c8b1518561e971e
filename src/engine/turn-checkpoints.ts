/**
 * A session's checkpoints, turn by turn (issue 25): before the first call of a turn that may
 * change the workspace runs (after its approval), the workspace is snapshotted once; when the turn
 * ends (answered, cancelled, failed) it is snapshotted again, and the session document records the
 * pair with the files that differ. A turn that only reads takes no snapshot at all. The store is
 * opened on the first snapshot; a refused workspace ($HOME, /, a folder holding Crystal's home) or
 * a store that fails is said once, and the session goes on without checkpoints.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { CheckpointError, CheckpointRefusal, CheckpointStoreShape, FileChange, Snapshot } from "../checkpoints/store.ts"
import { nextTurnNumber, promptLine, type CheckpointRecord } from "../session/checkpoint-records.ts"
import type { Tool } from "../tools/tool.ts"
import { formatBytes } from "../text/bytes.ts"
import type { ConversationShape } from "./conversation.ts"

export interface TurnCheckpointsShape {
  /** The turn's user message is in the transcript. */
  readonly turnStarted: (message: { readonly id: string; readonly text: string }) => Effect.Effect<void>
  /** A call that may change the workspace is about to run: the turn's "before" snapshot, once. */
  readonly beforeChange: Effect.Effect<void>
  /** The turn ended, however it ended: its record, with the files it changed (undefined: no snapshot). */
  readonly turnEnded: Effect.Effect<{ readonly turn: number; readonly files: ReadonlyArray<FileChange> } | undefined>
  /** The workspace's store (opened now if no turn opened it yet); undefined when the workspace has none (said once). */
  readonly store: Effect.Effect<CheckpointStoreShape | undefined>
}

export class TurnCheckpoints extends Context.Tag("crystal/TurnCheckpoints")<TurnCheckpoints, TurnCheckpointsShape>() {}

/**
 * Whether a call may change the workspace: every tool but the built-in ones plan mode offers
 * (those cannot write: docs/security.md), and any call a plugin rewrote.
 */
export const mayChangeWorkspace = (tool: Tool, rewritten: boolean): boolean =>
  rewritten || tool.external === true || !tool.modes.includes("plan")

/** The key a turn's snapshots are kept under in the store; a deleted session forgets `${session}/`. */
export const checkpointKey = (sessionId: string, turn: number): string => `${checkpointPrefix(sessionId)}${turn}`

/** What every key of a session starts with. */
export const checkpointPrefix = (sessionId: string): string => `${sessionId}/`

export interface TurnCheckpointsOptions {
  readonly sessionId: string
  readonly conversation: ConversationShape
  /** Opens the workspace's store; called once, on the first change of the session. */
  readonly open: Effect.Effect<CheckpointStoreShape | CheckpointRefusal, CheckpointError>
  readonly note: (text: string) => Effect.Effect<void>
  /** True while background tasks run: what they change between turns joins the next snapshotted turn. */
  readonly backgroundRunning?: Effect.Effect<boolean> | undefined
}

interface OpenTurn {
  readonly turn: number
  readonly messageId: string
  readonly prompt: string
  readonly at: Date
  /** The todo list as the turn started (absent: none). */
  readonly todos: CheckpointRecord["todos"]
  before: Snapshot | undefined
  /** The "before" snapshot was tried (a failed one is said once and not tried again this turn). */
  tried: boolean
  /** The previous turn's "after", when background tasks ran since: this turn's changes start from it. */
  readonly since: string | undefined
}

export const makeTurnCheckpoints = (options: TurnCheckpointsOptions): Effect.Effect<TurnCheckpointsShape> =>
  Effect.gen(function* () {
    const openStore = yield* Effect.cached(
      options.open.pipe(
        Effect.map((opened) => ("_tag" in opened ? { refused: opened.reason } : { store: opened })),
        Effect.catchAll((error) => Effect.succeed({ refused: `checkpoints are off: ${error.message}` }))
      )
    )
    let current: OpenTurn | undefined
    let disabled = false
    let backgroundSinceLastAfter = false
    const skippedSaid = new Set<string>()

    const store = Effect.flatMap(openStore, (opened) => {
      if ("store" in opened) return Effect.succeed(opened.store)
      if (disabled) return Effect.succeed(undefined)
      disabled = true
      return Effect.as(options.note(`${opened.refused} (the session goes on; its changes cannot be rewound)`), undefined)
    })

    /** One failed snapshot costs the turn its checkpoint, never the turn itself. */
    const failed = (error: CheckpointError) =>
      Effect.as(options.note(`No checkpoint for this turn: ${error.message}`), undefined)

    const noteSkipped = (snapshot: Snapshot) =>
      Effect.forEach(
        snapshot.skipped.filter((file) => !skippedSaid.has(file.path)),
        (file) => {
          skippedSaid.add(file.path)
          return options.note(`Checkpoints skip ${file.path} (${formatBytes(file.bytes)}, over checkpoints.maxFileBytes): a rewind cannot restore it.`)
        },
        { discard: true }
      )

    const take = (checkpoints: CheckpointStoreShape) =>
      checkpoints.snapshot().pipe(
        Effect.tap(noteSkipped),
        Effect.catchAll(failed)
      )

    const record = (entry: CheckpointRecord) =>
      options.conversation.update((doc) => ({ ...doc, checkpoints: [...(doc.checkpoints ?? []), entry] })).pipe(
        Effect.zipRight(options.conversation.save)
      )

    const turnStarted = (message: { readonly id: string; readonly text: string }) =>
      Effect.gen(function* () {
        const doc = yield* options.conversation.document
        const running = options.backgroundRunning === undefined ? false : yield* options.backgroundRunning
        current = {
          turn: nextTurnNumber(doc.checkpoints ?? []),
          messageId: message.id,
          prompt: promptLine(message.text),
          at: new Date(),
          todos: doc.todos,
          before: undefined,
          tried: false,
          since: backgroundSinceLastAfter || running ? [...(doc.checkpoints ?? [])].reverse().find((entry) => entry.after !== undefined)?.after : undefined
        }
      })

    // Calls that run side by side (a subagent's) wait for the one snapshot: none runs before it is taken.
    const taking = yield* Effect.makeSemaphore(1)
    const beforeChange = taking.withPermits(1)(
      Effect.suspend(() => {
        const turn = current
        if (turn === undefined || turn.tried || disabled) return Effect.void
        turn.tried = true
        return Effect.gen(function* () {
          const checkpoints = yield* store
          if (checkpoints === undefined) return
          const snapshot = yield* take(checkpoints)
          if (snapshot !== undefined) turn.before = snapshot
        })
      })
    )

    const turnEnded = Effect.suspend(() => {
      const turn = current
      current = undefined
      if (turn === undefined) return Effect.succeed(undefined)
      return Effect.gen(function* () {
        const base = { turn: turn.turn, kind: "turn" as const, messageId: turn.messageId, prompt: turn.prompt, at: turn.at.toISOString(), ...(turn.todos === undefined || turn.todos.length === 0 ? {} : { todos: turn.todos }) }
        const checkpoints = turn.before === undefined ? undefined : yield* store
        if (turn.before === undefined || checkpoints === undefined) {
          yield* record(base)
          return undefined
        }
        const after = yield* take(checkpoints)
        if (after === undefined) {
          yield* record(base)
          return undefined
        }
        const before = turn.since ?? turn.before.id
        const kept = yield* checkpoints.keep(checkpointKey(options.sessionId, turn.turn), [before, after.id], turn.at).pipe(
          Effect.as(true),
          Effect.catchAll((error) => Effect.as(failed(error), false))
        )
        const files = kept ? yield* checkpoints.changes(before, after.id).pipe(Effect.catchAll((error) => Effect.as(failed(error), undefined))) : undefined
        if (files === undefined) {
          yield* record(base)
          return undefined
        }
        const skipped = [...turn.before.skipped, ...after.skipped.filter((file) => !turn.before?.skipped.some((other) => other.path === file.path))]
        backgroundSinceLastAfter = options.backgroundRunning === undefined ? false : yield* options.backgroundRunning
        yield* record({ ...base, before, after: after.id, files, ...(skipped.length > 0 ? { skipped } : {}) })
        // checkpoints.maxBytes holds during a long session too: once a twentieth of it was added since
        // the last prune, prune now (by whole checkpoints, oldest first; this turn's is the newest).
        if (checkpoints.pruneDue?.() === true) yield* Effect.ignore(checkpoints.prune())
        return { turn: turn.turn, files }
      })
    })

    return { turnStarted, beforeChange, turnEnded, store } satisfies TurnCheckpointsShape
  })
