/**
 * A rewind (issue 25): prepared first (what goes back, which files were changed outside Crystal
 * since it last saw them, the conversation as it was), then applied with the operator's answers.
 * Applying takes a snapshot before and after, so the rewind is itself a checkpoint: rewinding to
 * it redoes what it undid. Nothing here asks anyone; `/rewind` and `crystal rewind` do.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { CheckpointStoreShape, Snapshot, StoredEntry } from "../checkpoints/store.ts"
import { nextTurnNumber, type CheckpointRecord } from "../session/checkpoint-records.ts"
import type { SessionDocument } from "../session/document.ts"
import type { Todo, TranscriptItem } from "../session/items.ts"
import { diffLines, withContext } from "../text/diff.ts"
import { checkpointKey } from "./turn-checkpoints.ts"
import { conversationBefore, conversationChange, fileTargets, markRewound, rewindTarget, snapshotted, type FileTarget, type RewindScope } from "./rewind-plan.ts"

export class RewindError extends Data.TaggedError("RewindError")<{
  readonly message: string
  /** Set when the rewind stopped partway: the caller saves it, so `/rewind <its turn>` puts back what was already written. */
  readonly partial?: AppliedRewind
}> {}

/** A file changed outside Crystal (the operator, another program) since Crystal last recorded it. */
export interface OutsideChange {
  readonly path: string
  /** What the change did, as diff lines ("-"/"+"/" " prefixed) or one line for binary files, modes, links. */
  readonly diff: ReadonlyArray<string>
}

export interface PreparedRewind {
  readonly sessionId: string
  readonly target: CheckpointRecord
  readonly scope: RewindScope
  /** The workspace as the rewind found it (undefined when no file goes back). */
  readonly now: Snapshot | undefined
  readonly files: ReadonlyArray<FileTarget>
  readonly outside: ReadonlyArray<OutsideChange>
  /** Files the checkpoints skipped for their size: a rewind leaves them as they are. */
  readonly skipped: ReadonlyArray<string>
  /** The conversation after the rewind (undefined: files only). */
  readonly conversation: ReadonlyArray<TranscriptItem> | undefined
}

const fail = (message: string) => new RewindError({ message })

const storeFailure = (error: { readonly message: string }) => fail(`checkpoint store: ${error.message}`)

export const prepareRewind = (
  store: CheckpointStoreShape | undefined,
  doc: SessionDocument,
  to: number,
  scope: RewindScope
): Effect.Effect<PreparedRewind, RewindError> =>
  Effect.gen(function* () {
    const records = doc.checkpoints ?? []
    const target = rewindTarget(records, to, doc.id)
    if (Either.isLeft(target)) return yield* fail(target.left)
    const conversation = scope === "files" ? undefined : conversationBefore(doc.items, records, to)
    if (conversation !== undefined && Either.isLeft(conversation)) return yield* fail(conversation.left)
    const base = { sessionId: doc.id, target: target.right, scope, conversation: conversation === undefined ? undefined : conversation.right }
    const pairs = snapshotted(records, to)
    const files = scope === "conversation" ? [] : fileTargets(pairs)
    const skipped = [...new Set(records.filter((record) => record.turn >= to).flatMap((record) => (record.skipped ?? []).map((file) => file.path)))]
    if (files.length === 0) return { ...base, now: undefined, files, outside: [], skipped }
    if (store === undefined) return yield* fail("checkpoints are off for this workspace, so its files cannot be rewound (--conversation-only rewinds the conversation)")
    const now = yield* store.snapshot().pipe(Effect.mapError(storeFailure))
    const outside = yield* outsideChanges(store, pairs, files, now)
    return { ...base, now, files, outside, skipped }
  })

/**
 * Files changed between two recorded states after a rewound record first changed them, or since
 * the last one: those are someone else's edits, never overwritten unasked.
 */
const outsideChanges = (
  store: CheckpointStoreShape,
  pairs: ReadonlyArray<CheckpointRecord & { readonly before: string; readonly after: string }>,
  files: ReadonlyArray<FileTarget>,
  now: Snapshot
) =>
  Effect.gen(function* () {
    const byPath = new Map(files.map((file) => [file.path, file]))
    const since = new Map<string, string>()
    const spans = pairs.map((pair, index) => ({ from: pair.after, to: pairs[index + 1]?.before ?? now.id, index }))
    for (const span of spans) {
      if (span.from === span.to) continue
      const changed = yield* store.changes(span.from, span.to).pipe(Effect.mapError(storeFailure))
      for (const change of changed) {
        const file = byPath.get(change.path)
        if (file !== undefined && file.first <= span.index && !since.has(change.path)) since.set(change.path, span.from)
      }
    }
    return yield* Effect.forEach([...since], ([path, from]) =>
      Effect.map(Effect.all([store.read(from, path), store.read(now.id, path)]).pipe(Effect.mapError(storeFailure)), ([was, is]) => ({ path, diff: entryDiff(was, is) }))
    )
  })

const textOf = (bytes: Uint8Array): string | undefined => (bytes.includes(0) ? undefined : new TextDecoder().decode(bytes))

const describe = (entry: StoredEntry | undefined): string =>
  entry === undefined ? "absent" : entry.kind === "symlink" ? `a link to ${entry.target}` : `${entry.bytes.length} bytes, mode ${(entry.mode & 0o7777).toString(8)}`

/** What changed between Crystal's last record of a file and the file now, for the operator to judge. */
export const entryDiff = (was: StoredEntry | undefined, is: StoredEntry | undefined): ReadonlyArray<string> => {
  if (was?.kind === "file" && is?.kind === "file") {
    const before = textOf(was.bytes)
    const after = textOf(is.bytes)
    const lines: Array<string> = []
    if ((was.mode & 0o7777) !== (is.mode & 0o7777)) lines.push(`mode ${(was.mode & 0o7777).toString(8)} → ${(is.mode & 0o7777).toString(8)}`)
    if (before !== undefined && after !== undefined) {
      lines.push(...withContext(diffLines(before, after)).map((line) => `${line.kind}${line.text}`))
      return lines
    }
    if (before !== after) lines.push(`binary: ${describe(was)} → ${describe(is)}`)
    return lines
  }
  return [`${describe(was)} → ${describe(is)}`]
}

export interface AppliedRewind {
  readonly record: CheckpointRecord
  /** Every record, the new one included, with what now stands undone marked. */
  readonly records: ReadonlyArray<CheckpointRecord>
  readonly items: ReadonlyArray<TranscriptItem> | undefined
  /** The todo list after the rewind (undefined: the conversation was not rewound, the list stays). */
  readonly todos: ReadonlyArray<Todo> | undefined
  /** Files left as they are because they were changed outside Crystal and the operator kept them. */
  readonly kept: ReadonlyArray<string>
}

/**
 * Puts the files back (those changed outside Crystal only when `overwrite` names them), snapshots
 * the result and records the rewind. The caller saves the document it returns.
 */
export const applyRewind = (
  store: CheckpointStoreShape | undefined,
  doc: SessionDocument,
  prepared: PreparedRewind,
  overwrite: ReadonlySet<string>
): Effect.Effect<AppliedRewind, RewindError> =>
  Effect.gen(function* () {
    const records = doc.checkpoints ?? []
    const turn = nextTurnNumber(records)
    const at = new Date()
    const outside = new Set(prepared.outside.map((change) => change.path))
    const kept = prepared.files.filter((file) => outside.has(file.path) && !overwrite.has(file.path)).map((file) => file.path)
    const restoring = prepared.files.filter((file) => !kept.includes(file.path))
    let files: CheckpointRecord["files"]
    let after: string | undefined
    let stopped: string | undefined
    let before: string | undefined
    if (store !== undefined && prepared.now !== undefined && restoring.length > 0) {
      // The operator may have edited a file while the dialogs were open: never overwrite that unseen.
      const fresh = yield* store.snapshot().pipe(Effect.mapError(storeFailure))
      const since = yield* store.changes(prepared.now.id, fresh.id).pipe(Effect.mapError(storeFailure))
      const restoringPaths = new Set(restoring.map((file) => file.path))
      const moved = since.filter((change) => restoringPaths.has(change.path)).map((change) => change.path)
      if (moved.length > 0) return yield* fail(`changed while you were asked: ${moved.join(", ")}; run /rewind again`)
      const now = fresh.id
      before = now
      const key = checkpointKey(doc.id, turn)
      // Kept first: if the restore stops partway, the state it started from is still held.
      yield* store.keep(key, [now], at).pipe(Effect.mapError(storeFailure))
      const restored = yield* Effect.either(store.restoreEach(restoring.map((file) => ({ path: file.path, from: file.from }))))
      if (Either.isLeft(restored)) stopped = restored.left.message
      const snapshot = yield* store.snapshot().pipe(Effect.mapError(storeFailure))
      after = snapshot.id
      files = yield* store.changes(now, snapshot.id).pipe(Effect.mapError(storeFailure))
      yield* store.keep(key, [now, snapshot.id], at).pipe(Effect.mapError(storeFailure))
    }
    const change = prepared.conversation === undefined ? undefined : conversationChange(doc.items, prepared.conversation)
    const scopeText = prepared.scope === "both" ? "" : prepared.scope === "files" ? " (files only)" : " (conversation only)"
    const record: CheckpointRecord = {
      turn,
      kind: "rewind",
      prompt: `rewind to ${prepared.target.kind === "rewind" ? "before rewind" : "turn"} ${prepared.target.turn}${scopeText}`,
      at: at.toISOString(),
      to: prepared.target.turn,
      ...(after !== undefined && before !== undefined ? { before, after, files: files ?? [] } : {}),
      ...(change === undefined ? {} : { keptItems: change.keptItems, removedItems: change.removedItems }),
      // The todo list this rewind replaces: rewinding the conversation to this record brings it back.
      ...(change === undefined || doc.todos === undefined || doc.todos.length === 0 ? {} : { todos: doc.todos })
    }
    if (stopped !== undefined) {
      // Files only, nothing marked undone: the conversation was not touched, and rewinding to this record puts back what was written.
      const { keptItems: _kept, removedItems: _removed, todos: _todos, ...filesOnly } = record
      const partialRecord: CheckpointRecord = { ...filesOnly, prompt: `${record.prompt} (stopped partway)` }
      return yield* Effect.fail(
        new RewindError({
          message: `rewind stopped partway: ${stopped}; ${(files ?? []).length} file(s) already changed, the conversation is as it was (checkpoint ${turn}: rewinding to it puts those files back)`,
          partial: { record: partialRecord, records: [...records, partialRecord], items: undefined, todos: undefined, kept }
        })
      )
    }
    return {
      record,
      records: [...markRewound(records, prepared.target.turn, turn, prepared.scope), record],
      items: prepared.conversation,
      todos: prepared.conversation === undefined ? undefined : prepared.target.todos ?? [],
      kept
    }
  })

/** The session document after a rewind: its records, and (when the conversation was rewound) its messages and todo list. */
export const rewoundDocument = (doc: SessionDocument, applied: AppliedRewind): SessionDocument => {
  if (applied.items === undefined) return { ...doc, checkpoints: applied.records }
  const { todos: _todos, ...rest } = doc
  return { ...rest, items: applied.items, checkpoints: applied.records, ...(applied.todos === undefined || applied.todos.length === 0 ? {} : { todos: applied.todos }) }
}
