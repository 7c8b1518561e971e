/**
 * `crystal prompt-attachments list|show|enable|disable` (SPEC E4, P7): the attachments of the home
 * and of a workspace, outside a session, editing the same prompt.json files /promptattach does.
 * Without --source a name means its winning copy (the workspace's when both exist); `--source
 * home|project` picks a copy. Nothing here creates a missing directory or manifest, or touches a
 * broken one.
 */
import * as path from "node:path"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import {
  changePromptAttachment,
  listPromptAttachments,
  type AttachmentRow,
  type AttachmentSource,
  type PromptPaths
} from "../prompts/attachments.ts"
import { PromptChangeError } from "../prompts/manifest.ts"
import {
  fileCell,
  formatOption,
  handle,
  homeFrom,
  homeOption,
  isDirectory,
  printFields,
  printNotes,
  printRows,
  UsageError,
  yesNo
} from "./listing.ts"
import { writeInertStderr, writeInertStdout } from "../terminal/output.ts"

const workspaceOption = Options.text("workspace").pipe(
  Options.withDescription("The workspace whose .crystal/prompt-attachments to use (default: the current directory)"),
  Options.optional
)

const sourceOption = Options.choice("source", ["home", "project"]).pipe(
  Options.withDescription("home: ~/.crystal/prompt-attachments; project: <workspace>/.crystal/prompt-attachments (default: the copy in use)"),
  Options.optional
)

const nameArg = Args.text({ name: "NAME" }).pipe(Args.withDescription("A prompt attachment (its directory name)"))

const sourceFrom = (source: Option.Option<"home" | "project">): AttachmentSource | undefined =>
  Option.isNone(source) ? undefined : source.value === "home" ? "home" : "workspace"

const pathsFrom = (home: Option.Option<string>, workspace: Option.Option<string>): PromptPaths => {
  const homeDir = homeFrom(home)
  const root = Option.isNone(workspace) ? process.cwd() : path.resolve(workspace.value)
  if (Option.isSome(workspace) && !isDirectory(root)) throw new UsageError(`--workspace ${workspace.value}: not a directory`)
  return { home: homeDir, workspaceDir: path.join(root, ".crystal") }
}

const sourceCell = (row: AttachmentRow): string => (row.shadowed ? `${row.source} (overridden)` : row.source)

const listCells = (row: AttachmentRow): ReadonlyArray<string> => [
  row.id,
  yesNo(row.enabled),
  row.order === undefined ? "-" : String(row.order),
  sourceCell(row),
  fileCell(row.files.work, "-"),
  fileCell(row.files.plan, "-"),
  fileCell(row.files.review, "-"),
  row.title
]

const list = (setExitCode: (code: number) => void) =>
  Command.make(
    "list",
    { home: homeOption, workspace: workspaceOption, source: sourceOption, format: formatOption },
    ({ home, workspace, source, format }) =>
      handle(setExitCode)(() =>
        Effect.sync(() => {
          const chosen = sourceFrom(source)
          const listing = listPromptAttachments(pathsFrom(home, workspace), undefined, { source: chosen })
          printNotes(listing.notes)
          if (listing.rows.length === 0 && format === "table") {
            const where = chosen === undefined ? `${listing.dirs.home} or ${listing.dirs.workspace}` : listing.dirs[chosen]
            writeInertStderr(`no prompt attachments in ${where}\n`)
            return
          }
          printRows(format, ["NAME", "ENABLED", "ORDER", "SOURCE", "WORK", "PLAN", "REVIEW", "TITLE"], listing.rows.map(listCells))
        })
      )
  ).pipe(Command.withDescription("List the prompt attachments of the home and the workspace, the enabled ones first in the order they attach"))

const show = (setExitCode: (code: number) => void) =>
  Command.make(
    "show",
    { home: homeOption, workspace: workspaceOption, source: sourceOption, format: formatOption, name: nameArg },
    ({ home, workspace, source, format, name }) =>
      handle(setExitCode)(() =>
        Effect.gen(function* () {
          const chosen = sourceFrom(source)
          const listing = listPromptAttachments(pathsFrom(home, workspace), undefined, { source: chosen })
          const row = listing.rows.find((candidate) => candidate.id === name)
          if (row === undefined) {
            const skipped = listing.skipped.find((entry) => entry.id === name && (chosen === undefined || entry.source === chosen))
            const where = chosen === undefined ? `${listing.dirs.home} or ${listing.dirs.workspace}` : listing.dirs[chosen]
            return yield* Effect.fail(
              new PromptChangeError({
                message:
                  skipped !== undefined ? `the prompt attachment '${name}' cannot be used: ${skipped.reason}` : `no prompt attachment '${name}' in ${where}`
              })
            )
          }
          printNotes(listing.notes.filter((note) => note.startsWith(`${row.dir}${path.sep}`)))
          printFields(format, [
            ["Name", row.id],
            ["Title", row.title],
            ["Description", row.description ?? ""],
            ["Source", sourceCell(row)],
            ["Enabled", yesNo(row.enabled)],
            ["Order", row.order === undefined ? "-" : String(row.order)],
            ["Position", row.position === undefined ? "-" : String(row.position + 1)],
            ["Directory", row.dir],
            ["Manifest", row.manifestFile],
            ["work", row.files.work?.file ?? "-"],
            ["plan", row.files.plan?.file ?? "-"],
            ["review", row.files.review?.file ?? "-"]
          ])
        })
      )
  ).pipe(Command.withDescription("Show a prompt attachment: its manifest, where it attaches and its work/plan/review files"))

const change = (verb: "enable" | "disable", setExitCode: (code: number) => void) =>
  Command.make(
    verb,
    { home: homeOption, workspace: workspaceOption, source: sourceOption, name: nameArg },
    ({ home, workspace, source, name }) =>
      handle(setExitCode)(() =>
        Effect.gen(function* () {
          const result = yield* changePromptAttachment(pathsFrom(home, workspace), verb, name, { idle: true, source: sourceFrom(source) })
          writeInertStdout(`${result.message}\n`)
        })
      )
  ).pipe(
    Command.withDescription(
      verb === "enable"
        ? "Enable a prompt attachment: it attaches after the enabled ones (their order is rewritten 0..n-1)"
        : "Disable a prompt attachment (the others keep their order)"
    )
  )

export const promptAttachmentsCommand = (setExitCode: (code: number) => void) =>
  Command.make("prompt-attachments").pipe(
    Command.withDescription("Prompt attachments: texts appended to the Work, Plan and Review prompts"),
    Command.withSubcommands([list(setExitCode), show(setExitCode), change("enable", setExitCode), change("disable", setExitCode)])
  )
