/**
 * The session a conversation is in, and the engine API behind /clear, /resume, /fork and /export
 * (SPEC S1, S4). Each session lives in its own scope. Switching ends the old one first (flushed,
 * its lock released, its background processes killed: SPEC H4's session end) and then starts the
 * other exactly as `crystal --resume` would, so its system message is composed afresh from the
 * prompt files enabled now (seed 000), and its model, mode, approval, todos and grants are the
 * saved ones. The process's other flags (--disable-tool, prompt flags) stay in force.
 *
 * /cd keeps the conversation (same id, same transcript) and restarts it on the new workspace: the
 * path fence, skills, prompt files and AGENTS.md come from there, access grants stay as they were.
 * /space is /clear in another workspace.
 *
 * A switch is refused while a turn runs. Everything that can fail (unknown id, missing
 * credentials, a session open in another process) is checked before the old session ends; if
 * starting the new one still fails, the old one is reopened and the error returned.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as path from "node:path"
import { startSession, type Session } from "./session.ts"
import { prepareSession, type PreparedSession, type PrepareError } from "./prepare.ts"
import { realDirectory, typedPath, type DirectoryError } from "../src/files/directories.ts"
import type { SessionRequest } from "./prepare.ts"
import { CommandRefused } from "../src/engine/errors.ts"
import type { SessionLocked } from "../src/session/lock.ts"
import { Conversation } from "../src/engine/conversation.ts"
import { MediaStore } from "../src/media/media-store.ts"
import type { OperatorShape } from "../src/engine/operator.ts"
import type { RendererShape } from "../src/engine/renderer.ts"
import type { SessionDocument } from "../src/session/document.ts"
import type { ExportResult } from "../src/session/export.ts"
import { lockHolder } from "../src/session/lock.ts"
import type { SessionError, SessionListing } from "../src/session/store.ts"

/** What a switch can fail with; the session in use goes on. */
export type HostError = PrepareError | SessionLocked | CommandRefused
import { recentWorkspaces, type RecentWorkspace } from "../src/session/workspaces.ts"

export interface ActiveSession {
  readonly prepared: PreparedSession
  readonly session: Session
}

export interface SessionHostShape {
  /** The session turns run in now; read it again after every switch. */
  readonly current: () => ActiveSession
  /** /clear: a new, empty session with the same workspace, model, mode and approval; the old one stays on disk. */
  readonly clear: Effect.Effect<ActiveSession, HostError>
  /** /resume ID: continue a saved session (id or unique prefix) in this process. */
  readonly resume: (idOrPrefix: string) => Effect.Effect<ActiveSession, HostError>
  /** /fork: a copy of the current session under a new id naming its parent; the conversation goes on in the copy. */
  readonly fork: Effect.Effect<ActiveSession, HostError>
  /** /export [FILE]: the current session as one JSON file (default: <workspace>/crystal-session-ID.json). */
  readonly exportTo: (file?: string) => Effect.Effect<ExportResult, SessionError>
  /** What /resume offers: the saved sessions of the current workspace, newest first. */
  readonly list: Effect.Effect<SessionListing, SessionError>
  /** /cd DIR: the same session (id, transcript, model, mode, approval, grants) goes on in DIR. */
  readonly changeWorkspace: (dir: string) => Effect.Effect<ActiveSession, HostError>
  /** /space DIR: a new, empty session in DIR with the current model, mode and approval. */
  readonly newSessionIn: (dir: string) => Effect.Effect<ActiveSession, HostError>
  /** What /space offers: the workspaces of saved sessions, newest first. */
  readonly workspaces: Effect.Effect<ReadonlyArray<RecentWorkspace>, SessionError>
}

export interface SessionHostOptions {
  readonly flags: SessionRequest
  readonly env: Readonly<Record<string, string | undefined>>
  readonly renderer: RendererShape
  readonly operator: OperatorShape
}

interface Running extends ActiveSession {
  readonly scope: Scope.CloseableScope
}

const fail = (message: string) => Effect.fail(new CommandRefused({ message }))

/** The host and its first session; closing the enclosing scope ends whichever session is current. */
export const openSessionHost = (first: PreparedSession, options: SessionHostOptions): Effect.Effect<SessionHostShape, SessionLocked, Scope.Scope> =>
  Effect.gen(function* () {
    const start = (prepared: PreparedSession): Effect.Effect<Running, SessionLocked> =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        const session = yield* startSession(prepared, options).pipe(
          Scope.extend(scope),
          Effect.onError(() => Scope.close(scope, Exit.void))
        )
        return { prepared, session, scope }
      })

    let active = yield* start(first)
    yield* Effect.addFinalizer(() => Scope.close(active.scope, Exit.void))

    const conversation = () => Context.get(active.session.services, Conversation)

    /** The current document with everything saved on disk; refused while a turn runs. */
    const settled = (command: string): Effect.Effect<SessionDocument, HostError> =>
      Effect.gen(function* () {
        if (yield* conversation().turnRunning) return yield* fail(`${command}: wait for the turn to finish (or cancel it) first`)
        yield* conversation().flush
        return yield* conversation().document
      })

    const switchTo = (
      command: string,
      prepare: (before: SessionDocument) => Effect.Effect<PreparedSession, HostError | DirectoryError>,
      sameSession = false
    ) =>
      Effect.gen(function* () {
        const before = yield* settled(command)
        const prepared = yield* prepare(before)
        if (!sameSession && prepared.document.id === before.id) return yield* fail(`${command}: ${before.id} is the current session`)
        const holder = sameSession ? undefined : lockHolder(prepared.store.dir, prepared.document.id)
        if (holder !== undefined) {
          return yield* fail(`${command}: session ${prepared.document.id} is open in another crystal process (pid ${holder}); close it there first`)
        }
        const old = active
        yield* Scope.close(old.scope, Exit.void)
        const next = yield* start(prepared).pipe(
          Effect.catchAll((error) =>
            start({ ...old.prepared, document: before, resumed: true }).pipe(
              Effect.tap((reopened) => Effect.sync(() => (active = reopened))),
              Effect.orDie,
              Effect.zipRight(Effect.fail(error))
            )
          )
        )
        active = next
        // The new workspace is on disk at once, not only after the next turn.
        if (sameSession) yield* conversation().save.pipe(Effect.zipRight(conversation().flush))
        return { prepared: next.prepared, session: next.session }
      })

    /** As `crystal --resume ID` from the session's own workspace; the saved model, mode and approval apply. */
    const prepareResume = (id: string, workspace: string) =>
      prepareSession({ ...options.flags, resume: id, continue: false, model: undefined, mode: undefined, approval: undefined }, workspace, options.env, {
        prompts: first.prompts
      })

    /** A new session in `workspace` with the model, mode and approval `doc` has now. */
    const prepareFresh = (doc: SessionDocument, workspace: string) =>
      prepareSession(
        { ...options.flags, resume: undefined, continue: false, model: doc.model, mode: doc.mode, approval: doc.approval },
        workspace,
        options.env,
        { prompts: first.prompts }
      )

    /** DIR as typed after /cd or /space: relative to the current workspace, `~` for the home directory. */
    const inWorkspace = (command: string, from: string, dir: string): Effect.Effect<string, DirectoryError | CommandRefused> =>
      dir.trim() === ""
        ? fail(`${command}: which directory?`)
        : realDirectory(typedPath(from, dir), `${command}:`)

    return {
      current: () => ({ prepared: active.prepared, session: active.session }),
      clear: Effect.suspend(() => switchTo("/clear", (doc) => prepareFresh(doc, doc.workspace))),
      resume: (idOrPrefix) =>
        switchTo("/resume", () =>
          active.prepared.store.load(idOrPrefix).pipe(
            Effect.mapError((error) => new CommandRefused({ message: `/resume: ${error.message}` })),
            Effect.flatMap((doc) => prepareResume(doc.id, active.prepared.document.workspace))
          )
        ),
      fork: Effect.suspend(() =>
        switchTo("/fork", (doc) => active.prepared.store.fork(doc).pipe(Effect.flatMap((copy) => prepareResume(copy.id, copy.workspace))))
      ),
      changeWorkspace: (dir) =>
        switchTo(
          "/cd",
          (doc) =>
            Effect.gen(function* () {
              const workspace = yield* inWorkspace("/cd", doc.workspace, dir)
              if (workspace === doc.workspace) return yield* fail(`/cd: ${workspace} is already the workspace`)
              // Everything that depends on the workspace (paths, prompt selection, skills) is prepared as for a new session there.
              const there = yield* prepareFresh(doc, workspace)
              return {
                ...there,
                document: { ...doc, workspace, model: there.model.ref },
                resumed: true,
                spillDir: path.join(there.paths.spillDir, doc.id)
              }
            }),
          true
        ),
      newSessionIn: (dir) =>
        switchTo("/space", (doc) => inWorkspace("/space", doc.workspace, dir).pipe(Effect.flatMap((workspace) => prepareFresh(doc, workspace)))),
      workspaces: Effect.suspend(() => recentWorkspaces(active.prepared.store)),
      exportTo: (file) =>
        Effect.gen(function* () {
          yield* conversation().flush
          const doc = yield* conversation().document
          const exporter = yield* Effect.promise(() => import("../src/session/export.ts"))
          const target = file === undefined ? exporter.defaultExportFile(doc.workspace, doc.id) : path.resolve(doc.workspace, file)
          return yield* exporter.exportSession(doc, Context.get(active.session.services, MediaStore), target)
        }),
      list: Effect.suspend(() => active.prepared.store.list(active.prepared.document.workspace))
    } satisfies SessionHostShape
  })
