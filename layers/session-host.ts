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
 *
 * The host is a service (SessionHost) holding the running session in a SynchronizedRef: every
 * switch is one modifyEffect, so two switches never interleave (the second starts from the session
 * the first left), and an export runs between switches, never across one.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
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
import { SessionStore, type SessionError, type SessionListing } from "../src/session/store.ts"
import { redactDocument } from "../src/session/redact-document.ts"
import { Redactor } from "../src/secrets/redactor.ts"
import { recentWorkspaces, type RecentWorkspace } from "../src/session/workspaces.ts"

/** What a switch can fail with; the session in use goes on. */
export type HostError = PrepareError | SessionLocked | CommandRefused

export interface ActiveSession {
  readonly prepared: PreparedSession
  readonly session: Session
}

/** The switches there are: /clear, /resume ID, /fork, /cd DIR, /space DIR. */
export type Switch =
  | { readonly _tag: "clear" }
  | { readonly _tag: "resume"; readonly idOrPrefix: string }
  | { readonly _tag: "fork" }
  | { readonly _tag: "cd"; readonly dir: string }
  | { readonly _tag: "space"; readonly dir: string }

export type SwitchKind = Switch["_tag"]

export interface SessionHostShape {
  /** The session turns run in now; read it again after every switch. */
  readonly current: () => ActiveSession
  /** Ends the current session and goes on in the one `to` names; one switch at a time. */
  readonly switchTo: (to: Switch) => Effect.Effect<ActiveSession, HostError>
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

const commands: Record<SwitchKind, string> = { clear: "/clear", resume: "/resume", fork: "/fork", cd: "/cd", space: "/space" }

const conversationOf = (running: ActiveSession) => Context.get(running.session.services, Conversation)

/** The current document with everything saved on disk; refused while a turn runs. */
const settled = (running: ActiveSession, command: string): Effect.Effect<SessionDocument, HostError> =>
  Effect.gen(function* () {
    const conversation = conversationOf(running)
    if (yield* conversation.turnRunning) return yield* fail(`${command}: wait for the turn to finish (or cancel it) first`)
    yield* conversation.flush
    return yield* conversation.document
  })

/** DIR as typed after /cd or /space: relative to the current workspace, `~` for the home directory. */
const inWorkspace = (command: string, from: string, dir: string): Effect.Effect<string, DirectoryError | CommandRefused> =>
  dir.trim() === "" ? fail(`${command}: which directory?`) : realDirectory(typedPath(from, dir), `${command}:`)

/** How each switch prepares the session it goes to, from the running one and its settled document. */
const preparing = (first: PreparedSession, options: SessionHostOptions) => {
  /** As `crystal --resume ID` from the session's own workspace; the saved model, mode and approval apply. */
  const resumed = (id: string, workspace: string) =>
    prepareSession({ ...options.flags, resume: id, continue: false, model: undefined, mode: undefined, approval: undefined }, workspace, options.env, {
      prompts: first.prompts
    })
  /** A new session in `workspace` with the model, mode and approval `doc` has now. */
  const fresh = (doc: SessionDocument, workspace: string) =>
    prepareSession({ ...options.flags, resume: undefined, continue: false, model: doc.model, mode: doc.mode, approval: doc.approval }, workspace, options.env, {
      prompts: first.prompts
    })
  return (to: Switch, running: Running, doc: SessionDocument): Effect.Effect<PreparedSession, HostError | DirectoryError> => {
    switch (to._tag) {
      case "clear":
        return fresh(doc, doc.workspace)
      case "resume":
        return running.prepared.store.load(to.idOrPrefix).pipe(
          Effect.mapError((error) => new CommandRefused({ message: `/resume: ${error.message}` })),
          Effect.flatMap((found) => resumed(found.id, running.prepared.document.workspace))
        )
      case "fork":
        // The session's own store: the copy is written redacted of its secrets, like its saves.
        return Context.get(running.session.services, SessionStore).fork(doc).pipe(Effect.flatMap((copy) => resumed(copy.id, copy.workspace)))
      case "space":
        return inWorkspace("/space", doc.workspace, to.dir).pipe(Effect.flatMap((workspace) => fresh(doc, workspace)))
      case "cd":
        return Effect.gen(function* () {
          const workspace = yield* inWorkspace("/cd", doc.workspace, to.dir)
          if (workspace === doc.workspace) return yield* fail(`/cd: ${workspace} is already the workspace`)
          // Everything that depends on the workspace (paths, prompt selection, skills) is prepared as for a new session there.
          const there = yield* fresh(doc, workspace)
          return { ...there, document: { ...doc, workspace, model: there.model.ref }, resumed: true, spillDir: path.join(there.paths.spillDir, doc.id) }
        })
    }
  }
}

/** The host and its first session; closing the enclosing scope ends whichever session is current. */
const makeSessionHost = (first: PreparedSession, options: SessionHostOptions): Effect.Effect<SessionHostShape, SessionLocked, Scope.Scope> =>
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

    const initial = yield* start(first)
    const ref = yield* SynchronizedRef.make(initial)
    // What current() reads without waiting: set inside each switch, while it holds the ref.
    let active: Running = initial
    yield* Effect.addFinalizer(() => Effect.flatMap(SynchronizedRef.get(ref), (running) => Scope.close(running.scope, Exit.void)))
    const prepare = preparing(first, options)

    /** Ends `old` and starts `prepared`; if that fails, `old` is reopened as it was and the error given back. */
    const replace = (old: Running, before: SessionDocument, prepared: PreparedSession, sameSession: boolean) =>
      Effect.gen(function* () {
        yield* Scope.close(old.scope, Exit.void)
        const next = yield* Effect.either(start(prepared))
        if (Either.isLeft(next)) {
          const reopened = yield* start({ ...old.prepared, document: before, resumed: true }).pipe(Effect.orDie)
          return [Either.left<HostError>(next.left), reopened] as const
        }
        const switched = { prepared: next.right.prepared, session: next.right.session }
        // The new workspace is on disk at once, not only after the next turn (a failed write is reported; the switch stands).
        const conversation = conversationOf(next.right)
        const saved = sameSession ? yield* Effect.either(Effect.zipRight(conversation.save, conversation.flush)) : Either.right(undefined)
        return [Either.map(saved, (): ActiveSession => switched), next.right] as const
      })

    const switchTo = Effect.fn("SessionHost.switchTo")(function* (to: Switch) {
      const command = commands[to._tag]
      const sameSession = to._tag === "cd"
      const result = yield* SynchronizedRef.modifyEffect(ref, (running) =>
        Effect.gen(function* () {
          const before = yield* settled(running, command)
          const prepared = yield* prepare(to, running, before)
          if (!sameSession && prepared.document.id === before.id) return yield* fail(`${command}: ${before.id} is the current session`)
          const holder = sameSession ? undefined : lockHolder(prepared.store.dir, prepared.document.id)
          if (holder !== undefined) {
            return yield* fail(`${command}: session ${prepared.document.id} is open in another crystal process (pid ${holder}); close it there first`)
          }
          const [outcome, next] = yield* replace(running, before, prepared, sameSession)
          active = next
          return [outcome, next] as const
        })
      )
      return yield* result
    })

    /** `use` on the running session, with no switch under way meanwhile. */
    const withRunning = <A, E>(use: (running: Running) => Effect.Effect<A, E>) =>
      SynchronizedRef.modifyEffect(ref, (running) => Effect.map(use(running), (value) => [value, running] as const))

    return {
      current: () => ({ prepared: active.prepared, session: active.session }),
      switchTo,
      clear: Effect.suspend(() => switchTo({ _tag: "clear" })),
      resume: (idOrPrefix) => switchTo({ _tag: "resume", idOrPrefix }),
      fork: Effect.suspend(() => switchTo({ _tag: "fork" })),
      changeWorkspace: (dir) => switchTo({ _tag: "cd", dir }),
      newSessionIn: (dir) => switchTo({ _tag: "space", dir }),
      workspaces: Effect.suspend(() => recentWorkspaces(active.prepared.store)),
      exportTo: Effect.fn("SessionHost.exportTo")(function* (file?: string) {
        return yield* withRunning((running) =>
          Effect.gen(function* () {
            yield* conversationOf(running).flush
            // What the session file holds: the conversation in memory redacted of the session's secrets.
            const secrets = yield* Context.get(running.session.services, Redactor).secrets
            const doc = redactDocument(secrets, yield* conversationOf(running).document)
            const exporter = yield* Effect.promise(() => import("../src/session/export.ts"))
            const target = file === undefined ? exporter.defaultExportFile(doc.workspace, doc.id) : path.resolve(doc.workspace, file)
            return yield* exporter.exportSession(doc, Context.get(running.session.services, MediaStore), target)
          })
        )
      }),
      list: Effect.suspend(() => active.prepared.store.list(active.prepared.document.workspace))
    } satisfies SessionHostShape
  })

/**
 * The sessions of one process, one at a time (the TUI's; `crystal run` has one session and no
 * host). Its make opens the first session in the enclosing scope.
 */
export class SessionHost extends Context.Tag("crystal/SessionHost")<SessionHost, SessionHostShape>() {
  static readonly make = makeSessionHost

  static readonly layer = (first: PreparedSession, options: SessionHostOptions): Layer.Layer<SessionHost, SessionLocked> =>
    Layer.scoped(SessionHost, SessionHost.make(first, options))
}

/** The host and its first session, in the enclosing scope (SessionHost.make). */
export const openSessionHost = SessionHost.make
