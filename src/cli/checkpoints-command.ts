/**
 * `crystal checkpoints list` and `crystal rewind` (issue 25, docs/checkpoints.md): a session's
 * checkpoints and rewinds outside a session. A rewind that finds files changed outside Crystal
 * since it recorded them changes nothing without --yes: it prints them with their diffs and exits
 * with 4. With --yes it rewinds them too; what they held is in the rewind's own checkpoint, so
 * rewinding to the rewind brings them back.
 */
import * as path from "node:path"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ExitCode } from "../../layers/exit-code.ts"
import { checkpointSettingsFrom } from "../checkpoints/settings.ts"
import { openCheckpointStore } from "../checkpoints/open.ts"
import type { CheckpointStoreShape } from "../checkpoints/store.ts"
import { loadConfig } from "../config/load.ts"
import { filesChangedText } from "../engine/files-changed.ts"
import { applyRewind, prepareRewind, rewoundDocument, type PreparedRewind } from "../engine/rewind.ts"
import type { RewindScope } from "../engine/rewind-plan.ts"
import type { CheckpointRecord } from "../session/checkpoint-records.ts"
import { acquireSessionLock, SessionLocked } from "../session/lock.ts"
import { makeSessionStore, type SessionStoreShape } from "../session/store.ts"
import { inertJson } from "../terminal/inert.ts"
import { writeInertStderr, writeInertStdout, writeStdout } from "../terminal/output.ts"
import { handle, homeFrom, homeOption, printRows, UsageError } from "./listing.ts"

const formatOption = Options.choice("format", ["table", "text", "json"]).pipe(
  Options.withDescription("table (default), text (tab-separated lines), or json"),
  Options.withDefault("table" as const)
)

const sessionOption = Options.text("session").pipe(Options.withDescription("A session id, or an unambiguous prefix of one"))

const time = (iso: string): string => iso.slice(0, 19).replace("T", " ")

/** "3 files (+12 −4)", "-" when the record took no snapshot. */
const filesCell = (record: CheckpointRecord): string => (record.files === undefined ? "-" : filesChangedText(record.files).replace(" changed", ""))

const stateCell = (record: CheckpointRecord): string => {
  const undone = [
    ...(record.filesUndoneBy !== undefined ? [`files undone by ${record.filesUndoneBy}`] : []),
    ...(record.conversationUndoneBy !== undefined ? [`conversation undone by ${record.conversationUndoneBy}`] : [])
  ]
  return undone.length === 0 ? "" : undone.join(", ")
}

/** A record for scripts: its fields, without the transcript a rewind keeps for a redo. */
export const recordJson = (record: CheckpointRecord) => {
  const { removedItems, keptItems: _kept, ...rest } = record
  return { ...rest, ...(removedItems === undefined ? {} : { removedMessages: removedItems.length }) }
}

/** The rows `crystal checkpoints list` and `crystal sessions show` print. */
export const checkpointRows = (records: ReadonlyArray<CheckpointRecord>): ReadonlyArray<ReadonlyArray<string>> =>
  records.map((record) => [String(record.turn), time(record.at), filesCell(record), record.prompt, stateCell(record)])

export const checkpointHeader = ["TURN", "TIME (UTC)", "FILES", "PROMPT", "STATE"] as const

const loadSession = (home: Option.Option<string>, session: Option.Option<string>) =>
  Effect.gen(function* () {
    const homePath = homeFrom(home)
    const store = makeSessionStore(path.join(homePath, "sessions"))
    if (Option.isSome(session)) return { homePath, store, doc: yield* store.load(session.value) }
    const latest = yield* store.latestForWorkspace(process.cwd())
    if (Option.isNone(latest)) throw new UsageError(`no saved session for ${process.cwd()}; name one with --session ID (crystal sessions list)`)
    return { homePath, store, doc: latest.value }
  })

const list = (setExitCode: (code: number) => void) =>
  Command.make("list", { home: homeOption, format: formatOption, session: sessionOption.pipe(Options.optional) }, ({ home, format, session }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const { doc } = yield* loadSession(home, session)
        const records = doc.checkpoints ?? []
        if (format === "json") {
          writeStdout(`${inertJson({ session: doc.id, workspace: doc.workspace, checkpoints: records.map(recordJson) })}\n`)
        } else if (records.length === 0 && format === "table") {
          writeInertStderr(`session ${doc.id} has no checkpoints yet\n`)
        } else printRows(format, [...checkpointHeader], checkpointRows(records))
      })
    )
  ).pipe(Command.withDescription("List a session's checkpoints (one per turn, and one per rewind): the latest session of the current directory, or --session ID"))

const printOutside = (prepared: PreparedRewind): void => {
  for (const change of prepared.outside) writeInertStdout(`changed outside Crystal since it was recorded: ${change.path}\n${change.diff.map((line) => `  ${line}`).join("\n")}\n`)
}

const openStore = (homePath: string, workspace: string): Effect.Effect<CheckpointStoreShape | undefined> =>
  Effect.gen(function* () {
    const config = (yield* Effect.either(loadConfig(path.join(homePath, "config.json")))).pipe((loaded) => (loaded._tag === "Right" ? loaded.right.config : undefined))
    const opened = yield* openCheckpointStore(workspace, homePath, checkpointSettingsFrom(config?.checkpoints))
    return "_tag" in opened ? undefined : opened
  })

const rewindWith = (store: SessionStoreShape, homePath: string, id: string, to: number, scope: RewindScope, yes: boolean, json: boolean) =>
  Effect.gen(function* () {
    const doc = yield* store.load(id)
    const checkpoints = scope === "conversation" ? undefined : yield* openStore(homePath, doc.workspace)
    const prepared = yield* prepareRewind(checkpoints, doc, to, scope)
    if (prepared.outside.length > 0 && !yes) {
      if (json) writeStdout(`${inertJson({ type: "rewind_unconfirmed", session: doc.id, to, outside: prepared.outside })}\n`)
      else printOutside(prepared)
      writeInertStderr(`crystal: nothing was rewound: ${prepared.outside.length} file(s) changed outside Crystal since it recorded them; run again with --yes to rewind them too (a rewind to the new checkpoint brings them back)\n`)
      return ExitCode.unconfirmed
    }
    if (!json) printOutside(prepared)
    const applied = yield* applyRewind(checkpoints, doc, prepared, new Set(prepared.outside.map((change) => change.path))).pipe(
      Effect.tapError((error) => (error.partial === undefined ? Effect.void : store.save({ ...doc, checkpoints: error.partial.records })))
    )
    yield* store.save(rewoundDocument(doc, applied))
    const files = applied.record.files ?? []
    const removed = applied.record.removedItems?.length ?? 0
    if (json) {
      writeStdout(`${inertJson({ type: "rewind", session: doc.id, to, checkpoint: recordJson(applied.record), skipped: prepared.skipped })}\n`)
    } else {
      const parts = [
        ...(scope === "conversation" ? [] : [`${files.length === 0 ? "no file changed" : filesChangedText(files)}`]),
        ...(scope === "files" ? [] : [`${removed} message(s) out of the conversation`])
      ]
      writeInertStdout(`rewound session ${doc.id} to before ${prepared.target.kind === "rewind" ? "rewind" : "turn"} ${prepared.target.turn}: ${parts.join(", ")}; this rewind is checkpoint ${applied.record.turn} (crystal rewind --to ${applied.record.turn} redoes it)\n`)
      for (const file of prepared.skipped) writeInertStderr(`crystal: ${file} was too large for checkpoints and is left as it is\n`)
    }
    return ExitCode.ok
  })

const rewind = (setExitCode: (code: number) => void) =>
  Command.make(
    "rewind",
    {
      home: homeOption,
      session: sessionOption,
      to: Options.integer("to").pipe(Options.withDescription("The turn (or rewind) to go back to: the state just before it (crystal checkpoints list)")),
      filesOnly: Options.boolean("files-only").pipe(Options.withDescription("Rewind the workspace's files, keep the conversation")),
      conversationOnly: Options.boolean("conversation-only").pipe(Options.withDescription("Rewind the conversation, keep the files")),
      yes: Options.boolean("yes").pipe(Options.withDescription("Also rewind files changed outside Crystal since it recorded them (without it: nothing changes, exit code 5)")),
      format: Options.choice("format", ["text", "json"]).pipe(Options.withDefault("text" as const), Options.withDescription("text (default) or json"))
    },
    ({ home, session, to, filesOnly, conversationOnly, yes, format }) => {
      let code: number = ExitCode.ok
      return handle((handled) => setExitCode(handled === 0 ? code : handled))(() =>
        Effect.gen(function* () {
          if (filesOnly && conversationOnly) throw new UsageError("--files-only and --conversation-only cannot be used together")
          if (to < 1) throw new UsageError(`--to ${to}: turns are numbered from 1 (crystal checkpoints list)`)
          const homePath = homeFrom(home)
          const store = makeSessionStore(path.join(homePath, "sessions"))
          const id = (yield* store.load(session)).id
          const lock = acquireSessionLock(store.dir, id)
          if (lock._tag === "Busy") return yield* new SessionLocked({ id, pid: lock.pid })
          const scope: RewindScope = filesOnly ? "files" : conversationOnly ? "conversation" : "both"
          code = yield* rewindWith(store, homePath, id, to, scope, yes, format === "json").pipe(Effect.ensuring(Effect.sync(lock.release)))
        })
      )
    }
  ).pipe(Command.withDescription("Rewind a session's files and conversation to just before a turn (docs/checkpoints.md)"))

export const checkpointsCommand = (setExitCode: (code: number) => void) =>
  Command.make("checkpoints").pipe(Command.withDescription("A session's checkpoints (docs/checkpoints.md)"), Command.withSubcommands([list(setExitCode)]))

export const rewindCommand = rewind
