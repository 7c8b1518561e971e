/**
 * The checkpoint store's contract (issue 25): Crystal's own content-addressed copy of a
 * workspace's files under ~/.crystal/checkpoints/<workspace-id>/, never the workspace's .git, its
 * index or its refs. The engine takes a snapshot before a turn's first change and after the turn;
 * rewind restores paths to their state in an earlier snapshot. docs/checkpoints.md says what is
 * covered and what is not.
 */
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

/** Opaque: names one recorded state of the workspace's files. */
export type SnapshotId = string

/** One file that differs between two snapshots; `added`/`removed` count lines (0 for binary files). */
export interface FileChange {
  readonly path: string
  readonly kind: "added" | "modified" | "deleted"
  readonly added: number
  readonly removed: number
  readonly binary: boolean
}

/** A file as a snapshot holds it (for showing an operator's edit as a diff before a rewind). */
export type StoredEntry =
  | { readonly kind: "file"; readonly mode: number; readonly bytes: Uint8Array }
  | { readonly kind: "symlink"; readonly target: string }

export interface Snapshot {
  readonly id: SnapshotId
  /** Files left out because they are larger than checkpoints.maxFileBytes (workspace-relative). */
  readonly skipped: ReadonlyArray<{ readonly path: string; readonly bytes: number }>
}

export interface PruneReport {
  readonly checkpointsRemoved: number
  readonly bytesBefore: number
  readonly bytesAfter: number
}

export class CheckpointError extends Data.TaggedError("CheckpointError")<{ readonly message: string }> {}

export interface CheckpointSettings {
  /** Files larger than this are skipped and named in Snapshot.skipped (default 10 MiB). */
  readonly maxFileBytes: number
  /** The store's bound per workspace (default 2 GiB); pruning removes whole checkpoints, oldest first. */
  readonly maxBytes: number
  /** Checkpoints older than this are pruned (default 30). */
  readonly keepDays: number
}

export const defaultCheckpointSettings: CheckpointSettings = {
  maxFileBytes: 10 * 1024 * 1024,
  maxBytes: 2 * 1024 * 1024 * 1024,
  keepDays: 30
}

export interface CheckpointStoreShape {
  readonly workspace: string
  /** Records the workspace's files as they are now (respecting .gitignore and the walker's ignores). */
  readonly snapshot: () => Effect.Effect<Snapshot, CheckpointError>
  /** Files that differ between two snapshots, sorted by path. */
  readonly changes: (from: SnapshotId, to: SnapshotId) => Effect.Effect<ReadonlyArray<FileChange>, CheckpointError>
  /** A path as `id` holds it; undefined when it is absent there. */
  readonly read: (id: SnapshotId, path: string) => Effect.Effect<StoredEntry | undefined, CheckpointError>
  /**
   * Puts exactly these workspace-relative paths back to their state in `id` (content, mode,
   * symlinks); a path absent in `id` is removed. Nothing else in the workspace is touched.
   */
  readonly restore: (id: SnapshotId, paths: ReadonlyArray<string>) => Effect.Effect<void, CheckpointError>
  /** Like restore, each path from its own snapshot, all in one pass (removals deepest first, then writes shallowest first). */
  readonly restoreEach: (entries: ReadonlyArray<{ readonly path: string; readonly from: SnapshotId }>) => Effect.Effect<void, CheckpointError>
  /**
   * Names the snapshots one checkpoint holds (key e.g. "<session>/<turn>") so pruning keeps their
   * content; pruning removes whole keys, oldest `at` first.
   */
  readonly keep: (key: string, ids: ReadonlyArray<SnapshotId>, at: Date) => Effect.Effect<void, CheckpointError>
  /** Drops every key starting with `prefix` (a deleted session); content another key holds stays. */
  readonly forget: (prefix: string) => Effect.Effect<void, CheckpointError>
  /** The keys still held (pruning may have removed older ones). */
  readonly kept: () => Effect.Effect<ReadonlyArray<{ readonly key: string; readonly ids: ReadonlyArray<SnapshotId>; readonly at: Date }>, CheckpointError>
  /** Removes whole checkpoints until the store is within maxBytes and keepDays; no temporary file stays. */
  readonly prune: () => Effect.Effect<PruneReport, CheckpointError>
  /**
   * True once this process has added a twentieth of maxBytes since its last prune: the session
   * prunes then, so the bound holds during a long session too, not only at the next start.
   */
  readonly pruneDue?: (() => boolean) | undefined
  /** Stops the store's change feed (its inotify watches); snapshots after it still work, as full scans. */
  readonly close?: () => Effect.Effect<void>
}

/** Why a workspace gets no checkpoints (its own note; the session goes on without them). */
export type CheckpointRefusal = { readonly _tag: "Refused"; readonly reason: string }
