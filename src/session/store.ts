import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { describeParseError } from "../config/parse-errors.ts"
import { writeFileAtomic } from "../files/atomic.ts"
import { jsonTextTooDeep } from "../files/json-depth.ts"
import type { ApprovalMode } from "../approval/policy.ts"
import { SessionDocument, emptyUsage, type Mode } from "./document.ts"
import { newSessionId } from "./ids.ts"
import { acquireSessionLock } from "./lock.ts"
import { codeOf } from "../text/error-text.ts"

export class SessionError extends Schema.TaggedError<SessionError>()("SessionError", {
  message: Schema.String
}) {}

export interface SessionSummary {
  readonly id: string
  readonly workspace: string
  readonly title: string | undefined
  readonly model: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly messageCount: number
  readonly parent: string | undefined
}

export interface UnreadableSession {
  readonly file: string
  readonly reason: string
}

export interface SessionListing {
  readonly sessions: ReadonlyArray<SessionSummary>
  readonly unreadable: ReadonlyArray<UnreadableSession>
}

export interface NewSession {
  readonly workspace: string
  readonly model: string
  readonly mode: Mode
  readonly approval: ApprovalMode
}

export interface SessionStoreShape {
  readonly dir: string
  /** A new document with a fresh id; it reaches the disk with its first save. */
  readonly create: (init: NewSession) => SessionDocument
  /** Atomic, owner-only; stamps updatedAt and returns the document as saved. */
  readonly save: (doc: SessionDocument) => Effect.Effect<SessionDocument, SessionError>
  /** By full id or an unambiguous prefix of one. */
  readonly load: (idOrPrefix: string) => Effect.Effect<SessionDocument, SessionError>
  /** Newest first, of one workspace when given; files that fail to parse are reported, never touched. */
  readonly list: (workspace?: string) => Effect.Effect<SessionListing, SessionError>
  /** A copy under a new id that names its parent; saved before it is returned. */
  readonly fork: (doc: SessionDocument) => Effect.Effect<SessionDocument, SessionError>
  /**
   * Deletes a session file, by id or prefix. Refused for a file that does not parse (it may be
   * someone's data) and for a session another live process has open. Returns the file removed.
   */
  readonly remove: (idOrPrefix: string) => Effect.Effect<string, SessionError>
  readonly latestForWorkspace: (workspace: string) => Effect.Effect<Option.Option<SessionDocument>, SessionError>
}

const decodeDocument = Schema.decodeUnknownEither(SessionDocument)

/** A session nests about six levels above its tool arguments, which are kept within 64 (providers/tool-arguments.ts). */
const maxSessionDepth = 128

const sessionFileName = (id: string): string => `${id}.json`

const messageCount = (doc: SessionDocument): number =>
  doc.items.filter((item) => item._tag === "user" || item._tag === "assistant").length

const summarize = (doc: SessionDocument): SessionSummary => ({
  id: doc.id,
  workspace: doc.workspace,
  title: doc.title,
  model: doc.model,
  createdAt: doc.createdAt,
  updatedAt: doc.updatedAt,
  messageCount: messageCount(doc),
  parent: doc.parent
})

/** A session file, checked: too deep, not JSON, or not a session document is an error that leaves the file as it is. */
const readSessionFile = (file: string): Effect.Effect<SessionDocument, SessionError> =>
  Effect.tryPromise({
    try: () => fs.readFile(file, "utf8"),
    catch: (error) => new SessionError({ message: `${file}: cannot read (${codeOf(error)})` })
  }).pipe(
    Effect.flatMap((text) => {
      if (jsonTextTooDeep(text, maxSessionDepth)) {
        return Effect.fail(new SessionError({ message: `${file}: nests deeper than ${maxSessionDepth} levels, not a Crystal session; the file was left untouched` }))
      }
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        return Effect.fail(new SessionError({ message: `${file}: not valid JSON; the file was left untouched` }))
      }
      return decodeDocument(json).pipe(
        Effect.mapError(
          (error) => new SessionError({ message: `${file}: not a Crystal session (${describeParseError(error)[0] ?? "invalid"}); the file was left untouched` })
        )
      )
    })
  )

const newSessionDocument = (init: NewSession): SessionDocument => {
  const now = new Date()
  return {
    version: 1,
    id: newSessionId(now),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    workspace: init.workspace,
    model: init.model,
    mode: init.mode,
    approval: init.approval,
    items: [],
    usage: emptyUsage
  }
}

/** The ids of the session files in `dir` (none when it does not exist yet). */
const sessionIds = (dir: string): Effect.Effect<ReadonlyArray<string>, SessionError> =>
  Effect.tryPromise({
    try: () => fs.readdir(dir),
    catch: (error) => error as NodeJS.ErrnoException
  }).pipe(
    Effect.map((names) => names.filter((name) => name.endsWith(".json") && !name.startsWith(".")).map((name) => name.slice(0, -5))),
    Effect.catchAll((error) =>
      error.code === "ENOENT" ? Effect.succeed([]) : Effect.fail(new SessionError({ message: `cannot list sessions in ${dir} (${codeOf(error)})` }))
    )
  )

/** A full id, or the one id an unambiguous prefix names. */
const resolveId = (dir: string, idOrPrefix: string): Effect.Effect<string, SessionError> =>
  Effect.gen(function* () {
    const ids = yield* sessionIds(dir)
    const exact = ids.find((id) => id === idOrPrefix)
    const matches = exact !== undefined ? [exact] : ids.filter((id) => id.startsWith(idOrPrefix))
    const [only] = matches
    if (idOrPrefix === "" || only === undefined) {
      return yield* new SessionError({ message: `no session '${idOrPrefix}' in ${dir} (list them with 'crystal sessions list')` })
    }
    if (matches.length > 1) {
      return yield* new SessionError({
        message: `'${idOrPrefix}' matches ${matches.length} sessions (${matches.slice(0, 5).join(", ")}${matches.length > 5 ? ", ..." : ""}); give more of the id`
      })
    }
    return only
  })

/** Newest first, of one workspace when given; files that fail to parse are reported, never touched. */
const listSessions = (dir: string, workspace: string | undefined): Effect.Effect<SessionListing, SessionError> =>
  Effect.gen(function* () {
    const ids = yield* sessionIds(dir)
    const results = yield* Effect.forEach(ids, (id) => Effect.either(readSessionFile(path.join(dir, sessionFileName(id)))), { concurrency: 8 })
    const sessions: Array<SessionSummary> = []
    const unreadable: Array<UnreadableSession> = []
    results.forEach((result, index) => {
      if (result._tag === "Left") unreadable.push({ file: path.join(dir, sessionFileName(ids[index] ?? "")), reason: result.left.message })
      else if (workspace === undefined || result.right.workspace === workspace) sessions.push(summarize(result.right))
    })
    sessions.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))
    return { sessions, unreadable }
  })

/** Deletes a session file that parses, holding its lock so that no process opens it meanwhile. */
const removeSession = (dir: string, idOrPrefix: string): Effect.Effect<string, SessionError> =>
  Effect.gen(function* () {
    const id = yield* resolveId(dir, idOrPrefix)
    const file = path.join(dir, sessionFileName(id))
    yield* readSessionFile(file).pipe(Effect.mapError((error) => new SessionError({ message: `not deleted: ${error.message}` })))
    const lock = yield* Effect.try({
      try: () => acquireSessionLock(dir, id),
      catch: (error) => new SessionError({ message: `cannot lock session ${id} (${codeOf(error)})` })
    })
    if (lock._tag === "Busy") {
      return yield* new SessionError({ message: `session ${id} is open in another crystal process (pid ${lock.pid}); close it there first` })
    }
    return yield* Effect.tryPromise({
      try: () => fs.rm(file),
      catch: (error) => new SessionError({ message: `cannot delete ${file} (${codeOf(error)})` })
    }).pipe(Effect.as(file), Effect.ensuring(Effect.sync(lock.release)))
  })

export const makeSessionStore = (dir: string): SessionStoreShape => {
  const fileOf = (id: string) => path.join(dir, sessionFileName(id))

  const save = (doc: SessionDocument): Effect.Effect<SessionDocument, SessionError> => {
    const saved: SessionDocument = { ...doc, updatedAt: new Date().toISOString() }
    return Effect.tryPromise({
      try: () => writeFileAtomic(fileOf(doc.id), JSON.stringify(saved), { mode: 0o600 }),
      catch: (error) => new SessionError({ message: `cannot save session ${doc.id} in ${dir} (${codeOf(error)})` })
    }).pipe(Effect.as(saved))
  }

  const load = (idOrPrefix: string): Effect.Effect<SessionDocument, SessionError> =>
    resolveId(dir, idOrPrefix).pipe(Effect.flatMap((id) => readSessionFile(fileOf(id))))

  const list = (workspace?: string): Effect.Effect<SessionListing, SessionError> => listSessions(dir, workspace)

  const latestForWorkspace = (workspace: string): Effect.Effect<Option.Option<SessionDocument>, SessionError> =>
    list(workspace).pipe(
      Effect.flatMap(({ sessions }) => {
        const latest = sessions[0]
        return latest === undefined ? Effect.succeedNone : Effect.asSome(load(latest.id))
      })
    )

  const fork = (doc: SessionDocument): Effect.Effect<SessionDocument, SessionError> => {
    const now = new Date().toISOString()
    return save({ ...doc, id: newSessionId(), parent: doc.id, createdAt: now, updatedAt: now })
  }

  return { dir, create: newSessionDocument, save, load, list, latestForWorkspace, fork, remove: (idOrPrefix) => removeSession(dir, idOrPrefix) }
}

export class SessionStore extends Context.Tag("crystal/SessionStore")<SessionStore, SessionStoreShape>() {}
