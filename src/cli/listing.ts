/**
 * What the listing commands (`crystal sessions`, `promptsets`, `prompt-attachments`) share: the
 * --format and --home options, tables or tab-separated lines, one-line failures with exit code 1.
 */
import { ExitCode, exitCode } from "../../layers/exit-code.ts"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolveHome } from "../config/paths.ts"
import type { PromptFile } from "../prompts/manifest.ts"
import { visible } from "../terminal/inert.ts"
import { writeInertStderr, writeStdout } from "../terminal/output.ts"

export type ListFormat = "table" | "text"

export const formatOption = Options.choice("format", ["table", "text"]).pipe(
  Options.withDescription("table (default), or text: plain tab-separated lines without a header"),
  Options.withDefault("table" as const)
)

export const homeOption = Options.text("home").pipe(
  Options.withDescription("The Crystal home directory (default: $CRYSTAL_HOME, else ~/.crystal)"),
  Options.optional
)

export const formatTable = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? []
  return rows
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join("  ").trimEnd())
    .join("\n")
}

/**
 * Rows as a table with a header, or as tab-separated lines. Cells can hold what came from outside
 * (a title the model wrote, a server's tool names): made inert before the columns are measured.
 */
export const printRows = (format: ListFormat, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): void => {
  const cells = rows.map((row) => row.map(visible))
  if (format === "text") writeStdout(cells.map((row) => `${row.join("\t")}\n`).join(""))
  else writeStdout(`${formatTable([header, ...cells])}\n`)
}

/** Key/value pairs: aligned in a table, `key<TAB>value` as text; values made inert as printRows' cells. */
export const printFields = (format: ListFormat, fields: ReadonlyArray<readonly [string, string]>): void => {
  const inert = fields.map(([key, value]) => [key, visible(value)] as const)
  if (format === "text") writeStdout(inert.map(([key, value]) => `${key.toLowerCase().replaceAll(" ", "-")}\t${value}\n`).join(""))
  else writeStdout(`${formatTable(inert.map(([key, value]) => [key, value]))}\n`)
}

export const printNotes = (notes: ReadonlyArray<string>): void => {
  for (const note of notes) writeInertStderr(`crystal: ${note}\n`)
}

/** A flag that does not fit (a missing --home, --all with --workspace): exit code 2, like other bad flags. */
export class UsageError extends Error {}

/** --home DIR (resolved; must be a directory when given), else $CRYSTAL_HOME or ~/.crystal. */
export const homeFrom = (home: Option.Option<string>): string => {
  if (Option.isNone(home)) return resolveHome(process.env)
  const dir = path.resolve(home.value)
  if (!isDirectory(dir)) throw new UsageError(`--home ${home.value}: not a directory`)
  return dir
}

/** --workspace DIR, else the current directory, as a real path (what trust entries are keyed by). */
export const workspaceFrom = (workspace: Option.Option<string>): string => {
  const dir = path.resolve(Option.getOrElse(workspace, () => process.cwd()))
  try {
    return fs.realpathSync(dir)
  } catch {
    throw new UsageError(`--workspace ${Option.getOrElse(workspace, () => dir)}: not a directory`)
  }
}

export const isDirectory = (dir: string): boolean => {
  try {
    return fs.statSync(dir).isDirectory()
  } catch {
    return false
  }
}

/** Runs a handler: exit code 0; a failure's one line on stderr with its exitCode; a UsageError's with 2. */
export const handle =
  (setExitCode: (code: number) => void) =>
  <E extends { readonly _tag: string; readonly message: string }, R>(body: () => Effect.Effect<void, E, R>): Effect.Effect<void, never, R> => {
    const report = (message: string, code: number) =>
      Effect.sync(() => {
        writeInertStderr(`crystal: ${message}\n`)
        setExitCode(code)
      })
    return Effect.suspend(body).pipe(
      Effect.zipRight(Effect.sync(() => setExitCode(0))),
      Effect.catchAll((error) => report(error.message, exitCode(error))),
      Effect.catchAllDefect((defect) => (defect instanceof UsageError ? report(defect.message, ExitCode.usage) : Effect.die(defect)))
    )
  }

export const yesNo = (value: boolean): string => (value ? "yes" : "no")
export const fileCell = (file: PromptFile | undefined, missing: string): string => (file === undefined ? missing : path.basename(file.file))
