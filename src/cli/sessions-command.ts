/**
 * `crystal sessions list|show|export|delete` (SPEC E4): saved sessions outside a session. Tables by
 * default, `--format text` for tab-separated lines; a problem is one line on stderr with exit code
 * 1 (2 for flags that do not go together, or a broken config.json, read for the secrets that what
 * is printed or exported is redacted of). Unreadable session files are reported, never touched.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { SessionDocument } from "../session/document.ts"
import { makeMediaStore } from "../media/media-store.ts"
import { buildExport, defaultExportFile, exportSession } from "../session/export.ts"
import { makeSessionStore, type SessionSummary } from "../session/store.ts"
import { redactDocument } from "../session/redact-document.ts"
import { secretValues } from "../bash/shell-env.ts"
import { loadConfig } from "../config/load.ts"
import { redactText } from "../secrets/redact.ts"
import { Secrets } from "../secrets/secrets.ts"
import { inertJson } from "../terminal/inert.ts"
import { writeInertStderr, writeInertStdout, writeStdout } from "../terminal/output.ts"
import { formatOption, handle, homeFrom, homeOption, isDirectory, printFields, printRows, UsageError } from "./listing.ts"
import { clip } from "../text/clip.ts"
import { costText, sessionCost, tokensText } from "../providers/cost.ts"
import { priceLookup } from "../providers/pricing.ts"
import { forgetSessionCheckpoints } from "./forget-checkpoints.ts"
import { checkpointHeader, checkpointRows } from "./checkpoints-command.ts"

const homeDir = (home: Option.Option<string>): Effect.Effect<string> => Effect.sync(() => homeFrom(home))

const storeIn = (home: Option.Option<string>) => Effect.map(homeDir(home), (dir) => makeSessionStore(path.join(dir, "sessions")))

/**
 * The secrets a session started here would know (config.json's key variables and exclusions, in
 * this environment). What these commands print or export of a saved session is redacted of them
 * again: a file saved before sessions were redacted, or by a session that did not know a key
 * known now, shows none.
 */
const secretsIn = (homePath: string) => Effect.map(configIn(homePath), (config) => new Secrets(secretValues(config, process.env)))

const configIn = (homePath: string) => Effect.map(loadConfig(path.join(homePath, "config.json")), (loaded) => loaded.config)

const idArg = Args.text({ name: "ID" }).pipe(Args.withDescription("A session id, or an unambiguous prefix of one"))

const time = (iso: string): string => iso.slice(0, 16).replace("T", " ")

const reportUnreadable = (unreadable: ReadonlyArray<{ readonly reason: string }>): void => {
  for (const broken of unreadable) writeInertStderr(`crystal: unreadable session: ${broken.reason}\n`)
}

const list = (setExitCode: (code: number) => void) =>
  Command.make(
    "list",
    {
      home: homeOption,
      format: formatOption,
      workspace: Options.directory("workspace").pipe(
        Options.withDescription("List the sessions of this workspace (default: the current directory)"),
        Options.optional
      ),
      all: Options.boolean("all").pipe(Options.withDescription("List the sessions of every workspace"))
    },
    ({ home, format, workspace, all }) =>
      handle(setExitCode)(() =>
        Effect.gen(function* () {
          if (all && Option.isSome(workspace)) throw new UsageError("--all and --workspace cannot be used together")
          const store = yield* storeIn(home)
          const secrets = yield* secretsIn(yield* homeDir(home))
          const dir = Option.getOrElse(workspace, () => process.cwd())
          if (!isDirectory(dir)) throw new UsageError(`--workspace ${dir}: not an accessible directory`)
          const filter = all ? undefined : fs.realpathSync(dir)
          const listing = yield* store.list(filter)
          reportUnreadable(listing.unreadable)
          const cells = (session: SessionSummary) => [
            session.id,
            time(session.updatedAt),
            String(session.messageCount),
            session.model,
            session.title === undefined ? "(untitled)" : redactText(secrets, session.title)
          ]
          if (format === "text") {
            printRows("text", [], listing.sessions.map((session) => [...cells(session), session.workspace]))
          } else if (listing.sessions.length === 0) {
            writeInertStderr(`no saved sessions ${filter === undefined ? "" : `for ${filter} `}in ${store.dir}${filter === undefined ? "" : " (--all lists every workspace)"}\n`)
          } else {
            const header = ["ID", "UPDATED (UTC)", "MESSAGES", "MODEL", "TITLE"]
            printRows(
              "table",
              all ? [...header, "WORKSPACE"] : header,
              listing.sessions.map((session) => (all ? [...cells(session), session.workspace] : cells(session)))
            )
          }
        })
      )
  ).pipe(Command.withDescription("List saved sessions, newest first: those of the current directory, of --workspace DIR, or --all"))

const firstLine = (text: string, max = 100): string => {
  const line = text.trim().split("\n")[0] ?? ""
  return clip(line, max + 1)
}

/** One line per message; a task call's child (issue 26) follows it, indented, with its own messages. */
const transcriptLines = (doc: Pick<SessionDocument, "items" | "agents">, indent = ""): ReadonlyArray<string> =>
  doc.items.flatMap((item) => {
    if (item._tag === "user" && item.synthetic === undefined) return [`${indent}[user] ${firstLine(item.text)}`]
    if (item._tag === "assistant") {
      const calls = (item.toolCalls ?? []).map((call) => call.name)
      const line = `${indent}[assistant] ${firstLine(item.text)}${calls.length > 0 ? ` (calls ${calls.join(", ")})` : ""}`.trimEnd()
      const children = (item.toolCalls ?? []).flatMap((call) => {
        const child = doc.agents?.[call.id]
        if (child === undefined) return []
        const heading = `${indent}  [task ${child.index} › ${child.agent}] ${firstLine(child.description)} (${child.status})`
        return [heading, ...transcriptLines(child, `${indent}    `)]
      })
      return [line, ...children]
    }
    return []
  })

const show = (setExitCode: (code: number) => void) =>
  Command.make("show", { home: homeOption, format: formatOption, id: idArg }, ({ home, format, id }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const store = yield* storeIn(home)
        const config = yield* configIn(yield* homeDir(home))
        const doc = redactDocument(new Secrets(secretValues(config, process.env)), yield* store.load(id))
        const todos = doc.todos ?? []
        const cost = sessionCost(doc, priceLookup(config.pricing))
        printFields(format, [
          ["Id", doc.id],
          ["Title", doc.title ?? "(untitled)"],
          ["Workspace", doc.workspace],
          ["Model", doc.model],
          ["Mode", doc.mode],
          ["Approval", doc.approval],
          ["Created", doc.createdAt],
          ["Updated", doc.updatedAt],
          ["Messages", String(doc.items.filter((item) => item._tag === "user" || item._tag === "assistant").length)],
          ["Todos", `${todos.filter((todo) => todo.status === "completed").length}/${todos.length} done`],
          ["Usage", tokensText(cost.usage)],
          ["Cost", costText(cost)],
          ["Parent", doc.parent ?? "-"],
          ["Checkpoints", String(doc.checkpoints?.length ?? 0)],
          ["File", path.join(store.dir, `${doc.id}.json`)]
        ])
        const lines = transcriptLines(doc)
        if (format === "table" && lines.length > 0) writeInertStdout(`\n${lines.join("\n")}\n`)
        const checkpoints = doc.checkpoints ?? []
        if (format === "table" && checkpoints.length > 0) {
          writeInertStdout(`\nCheckpoints (crystal rewind --session ${doc.id} --to TURN):\n`)
          printRows("table", [...checkpointHeader], checkpointRows(checkpoints))
        }
      })
    )
  ).pipe(Command.withDescription("Show a session: its settings, then its conversation one line per message"))

const exportCommand = (setExitCode: (code: number) => void) =>
  Command.make(
    "export",
    {
      home: homeOption,
      id: idArg,
      output: Options.text("output").pipe(
        Options.withAlias("o"),
        Options.withDescription("Where to write the JSON (default: ./crystal-session-ID.json; - for stdout)"),
        Options.optional
      )
    },
    ({ home, id, output }) =>
      handle(setExitCode)(() =>
        Effect.gen(function* () {
          const homePath = yield* homeDir(home)
          const doc = redactDocument(yield* secretsIn(homePath), yield* makeSessionStore(path.join(homePath, "sessions")).load(id))
          const media = makeMediaStore(path.join(homePath, "media"))
          const missingNote = (missing: ReadonlyArray<string>) => {
            if (missing.length > 0) writeInertStderr(`crystal: ${missing.length} image(s) exported without their bytes (media file missing or changed): ${missing.join(", ")}\n`)
          }
          if (Option.getOrUndefined(output) === "-") {
            const { exported, missingImages } = yield* buildExport(doc, media)
            writeStdout(`${inertJson(exported, 2)}\n`)
            missingNote(missingImages)
            return
          }
          const file = Option.match(output, { onNone: () => defaultExportFile(process.cwd(), doc.id), onSome: (given) => path.resolve(given) })
          const result = yield* exportSession(doc, media, file)
          missingNote(result.missingImages)
          writeInertStdout(`exported session ${doc.id} to ${result.file}\n`)
        })
      )
  ).pipe(Command.withDescription("Write a session as one self-contained JSON file (images inlined where their bytes are available)"))

const deleteCommand = (setExitCode: (code: number) => void) =>
  Command.make("delete", { home: homeOption, id: idArg }, ({ home, id }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const homePath = yield* homeDir(home)
        const store = makeSessionStore(path.join(homePath, "sessions"))
        const doc = yield* Effect.option(store.load(id))
        const file = yield* store.remove(id)
        const removedId = path.basename(file, ".json")
        if (Option.isSome(doc)) {
          const problem = yield* forgetSessionCheckpoints(homePath, doc.value.workspace, removedId, yield* configIn(homePath).pipe(Effect.orElseSucceed(() => ({}))))
          if (problem !== undefined) writeInertStderr(`crystal: ${problem}\n`)
        }
        // Its truncated tool outputs go with it.
        fs.rmSync(path.join(homePath, "spill", removedId), { recursive: true, force: true })
        writeInertStdout(`deleted session ${removedId} (${file})\n`)
      })
    )
  ).pipe(Command.withDescription("Delete a saved session (refused for a file that does not parse or a session open in a running crystal)"))

export const sessionsCommand = (setExitCode: (code: number) => void) =>
  Command.make("sessions").pipe(
    Command.withDescription("Saved sessions"),
    Command.withSubcommands([list(setExitCode), show(setExitCode), exportCommand(setExitCode), deleteCommand(setExitCode)])
  )
