import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { makeCrystalPaths } from "../config/paths.ts"
import { makeSessionStore, type SessionSummary } from "../session/store.ts"
import { writeStderr, writeStdout } from "./output.ts"

const formatTable = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? []
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join("  ")).join("\n")
}

const row = (session: SessionSummary): ReadonlyArray<string> => [
  session.id,
  session.updatedAt.slice(0, 16).replace("T", " "),
  String(session.messageCount),
  session.model,
  session.title ?? session.workspace
]

export const sessionsListCommand = (setExitCode: (code: number) => void) =>
  Command.make(
    "list",
    {
      format: Options.choice("format", ["table", "text"]).pipe(
        Options.withDescription("table (default) or text: one tab-separated line per session"),
        Options.withDefault("table" as const)
      )
    },
    ({ format }) =>
      Effect.gen(function* () {
        const store = makeSessionStore(makeCrystalPaths(process.cwd()).sessionsDir)
        const listing = yield* store.list()
        for (const broken of listing.unreadable) writeStderr(`crystal: skipped ${broken.reason}\n`)
        const rows = listing.sessions.map(row)
        if (format === "text") {
          writeStdout(rows.map((cells) => `${cells.join("\t")}\n`).join(""))
        } else if (rows.length === 0) {
          writeStderr(`no saved sessions in ${store.dir}\n`)
        } else {
          writeStdout(`${formatTable([["ID", "UPDATED (UTC)", "MESSAGES", "MODEL", "TITLE / WORKSPACE"], ...rows])}\n`)
        }
        setExitCode(0)
      }).pipe(
        Effect.catchAll((error) =>
          Effect.sync(() => {
            writeStderr(`crystal: ${error.message}\n`)
            setExitCode(1)
          })
        )
      )
  ).pipe(Command.withDescription("List saved sessions, newest first"))
