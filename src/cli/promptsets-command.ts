/**
 * `crystal promptsets list|show|enable|disable` (SPEC E4, P5): the home's prompt sets outside a
 * session, editing the same prompt.json files /promptset does. Home only, so there is no --source.
 * Tables by default, `--format text` for tab-separated lines; a problem is one line on stderr and
 * exit code 1. Nothing here creates a missing directory or manifest, or touches a broken one.
 */
import * as path from "node:path"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import { PromptChangeError } from "../prompts/manifest.ts"
import { promptNames } from "../prompts/names.ts"
import { defaultPromptSetName, disablePromptSet, enablePromptSet, listPromptSets, type PromptSetRow } from "../prompts/sets.ts"
import { fileCell, formatOption, handle, homeFrom, homeOption, printFields, printNotes, printRows, yesNo } from "./listing.ts"
import { writeInertStdout } from "../terminal/output.ts"

const nameArg = Args.text({ name: "NAME" }).pipe(Args.withDescription(`A prompt set (its directory name), or "${defaultPromptSetName}"`))

const listCells = (row: PromptSetRow): ReadonlyArray<string> => [
  row.id,
  row.builtin ? "-" : yesNo(row.enabled),
  yesNo(row.selected),
  fileCell(row.sources.work, "built-in"),
  fileCell(row.sources.plan, "built-in"),
  fileCell(row.sources.review, "built-in"),
  row.title
]

const list = (setExitCode: (code: number) => void) =>
  Command.make("list", { home: homeOption, format: formatOption }, ({ home, format }) =>
    handle(setExitCode)(() =>
      Effect.sync(() => {
        const listing = listPromptSets(homeFrom(home))
        printNotes(listing.notes)
        printRows(format, ["NAME", "ENABLED", "IN USE", "WORK", "PLAN", "REVIEW", "TITLE"], listing.rows.map(listCells))
      })
    )
  ).pipe(Command.withDescription("List the prompt sets in ~/.crystal/promptsets, the built-in \"default\" first"))

const show = (setExitCode: (code: number) => void) =>
  Command.make("show", { home: homeOption, format: formatOption, name: nameArg }, ({ home, format, name }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const listing = listPromptSets(homeFrom(home))
        const row = listing.rows.find((candidate) => candidate.id === name)
        if (row === undefined) {
          const known = listing.rows.map((candidate) => candidate.id).join(", ")
          const skipped = listing.skipped.find((entry) => entry.id === name)
          return yield* Effect.fail(
            new PromptChangeError({
              message:
                skipped !== undefined
                  ? `the prompt set '${name}' cannot be used: ${skipped.reason}`
                  : `no prompt set '${name}' in ${listing.dir} (available: ${known})`
            })
          )
        }
        // Only what concerns this set: an unreadable file of it, or a conflict it is part of.
        printNotes(
          listing.notes.filter(
            (note) => (row.dir !== undefined && note.startsWith(`${row.dir}${path.sep}`)) || (listing.conflict.includes(row.id) && note.startsWith("Prompt sets "))
          )
        )
        printFields(format, [
          ["Name", row.id],
          ["Title", row.title],
          ["Description", row.description ?? ""],
          ["Enabled", row.builtin ? "-" : yesNo(row.enabled)],
          ["In use", yesNo(row.selected)],
          ["Directory", row.dir ?? "(built in)"],
          ["Manifest", row.manifestFile ?? "-"],
          ...promptNames.map((prompt) => [prompt, row.files[prompt]?.file ?? "built-in"] as const)
        ])
      })
    )
  ).pipe(Command.withDescription("Show a prompt set: its manifest and where each of the nine named prompts comes from"))

const change = (verb: "enable" | "disable", setExitCode: (code: number) => void) =>
  Command.make(verb, { home: homeOption, name: nameArg }, ({ home, name }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const dir = homeFrom(home)
        const result = yield* verb === "enable" ? enablePromptSet(dir, name) : disablePromptSet(dir, name)
        writeInertStdout(`${result.message}\n`)
      })
    )
  ).pipe(
    Command.withDescription(
      verb === "enable"
        ? `Enable a prompt set (writes enabled: true on it and false on any other enabled set; "${defaultPromptSetName}" disables them all)`
        : "Disable a prompt set (clears every enabled flag: the built-in prompts are used)"
    )
  )

export const promptsetsCommand = (setExitCode: (code: number) => void) =>
  Command.make("promptsets").pipe(
    Command.withDescription("Prompt sets: alternative texts for the named prompts, in ~/.crystal/promptsets"),
    Command.withSubcommands([list(setExitCode), show(setExitCode), change("enable", setExitCode), change("disable", setExitCode)])
  )
