/**
 * `crystal tools list|show|enable|disable` (SPEC X5): the tool sets of the home and a workspace
 * outside a session. Nothing here runs a set's code (a module set's tools are named by its entry
 * file, not imported); enable/disable change only `enabled` in tools.json. Tables by default,
 * `--format text` for tab-separated lines; a problem is one line on stderr and exit code 1.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { discoverToolSets, setFiles, type ToolSetEntry, type ToolSource } from "../external-tools/discover.ts"
import { findToolSet, setToolSetEnabled, ToolSetChangeError } from "../external-tools/enable.ts"
import { trustEntryFor } from "../external-tools/session-tools.ts"
import { hashFiles } from "../trust/hash-files.ts"
import { isTrusted } from "../trust/trust-store.ts"
import { writeInertStdout } from "../terminal/output.ts"
import { formatOption, handle, homeFrom, homeOption, printFields, printNotes, printRows, workspaceFrom, yesNo } from "./listing.ts"

const nameArg = Args.text({ name: "DIR" }).pipe(Args.withDescription("A tool set (its folder name)"))

const workspaceOption = Options.text("workspace").pipe(
  Options.withDescription("The workspace whose .crystal/tools to read (default: the current directory)"),
  Options.optional
)

const sourceOption = Options.choice("source", ["home", "project"]).pipe(
  Options.withDescription("home (~/.crystal/tools) or project (<workspace>/.crystal/tools); default: both, the project's set first"),
  Options.optional
)

/** "yes"/"no" for a project set (is its current content trusted?), "-" for home sets and sets that cannot load. */
const trustCell = (home: string, workspace: string, entry: ToolSetEntry): string => {
  if (entry.source === "home" || entry.manifest === undefined) return "-"
  const files = setFiles(entry.dir, entry.manifest, workspace)
  try {
    return yesNo(isTrusted(home, trustEntryFor(workspace, { ...entry, manifest: entry.manifest, files, hash: hashFiles(files) })))
  } catch {
    return "no"
  }
}

const toolsCell = (entry: ToolSetEntry): string => {
  const manifest = entry.manifest
  if (entry.state === "replaced") return "(replaced by the project's set)"
  if (manifest === undefined) return entry.problem ?? ""
  return manifest.runner === "module" ? `(module ${manifest.entry})` : manifest.tools.map((tool) => tool.name).join(", ")
}

const context = (home: Option.Option<string>, workspace: Option.Option<string>) => {
  const homeDir = homeFrom(home)
  const workspaceDir = workspaceFrom(workspace)
  return { home: homeDir, workspace: workspaceDir, discovery: discoverToolSets(homeDir, workspaceDir) }
}

const list = (setExitCode: (code: number) => void) =>
  Command.make("list", { home: homeOption, workspace: workspaceOption, source: sourceOption, format: formatOption }, ({ home, workspace, source, format }) =>
    handle(setExitCode)(() =>
      Effect.sync(() => {
        const found = context(home, workspace)
        const wanted = Option.getOrUndefined(source) as ToolSource | undefined
        printNotes(found.discovery.notes.filter((note) => wanted === undefined || note.startsWith(wanted === "home" ? found.home : found.workspace)))
        const rows = found.discovery.entries
          .filter((entry) => wanted === undefined || entry.source === wanted)
          .map((entry) => [
            entry.name,
            entry.source,
            entry.state,
            entry.manifest?.runner ?? "-",
            entry.manifest?.catalogs.join(",") ?? "-",
            trustCell(found.home, found.workspace, entry),
            toolsCell(entry)
          ])
        printRows(format, ["DIR", "SOURCE", "STATE", "RUNNER", "CATALOGS", "TRUSTED", "TOOLS"], rows)
      })
    )
  ).pipe(Command.withDescription("List the tool sets of ~/.crystal/tools and <workspace>/.crystal/tools"))

const show = (setExitCode: (code: number) => void) =>
  Command.make("show", { home: homeOption, workspace: workspaceOption, source: sourceOption, format: formatOption, name: nameArg }, ({ home, workspace, source, format, name }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const found = context(home, workspace)
        const entry = findToolSet(found.discovery.entries, name, Option.getOrUndefined(source) as ToolSource | undefined)
        if (entry === undefined) {
          const known = [...new Set(found.discovery.entries.map((candidate) => candidate.name))].join(", ") || "none"
          return yield* new ToolSetChangeError({ message: `no tool set '${name}' (found: ${known})` })
        }
        const manifest = entry.manifest
        const tools =
          manifest === undefined
            ? []
            : manifest.runner === "module"
              ? [["Entry", manifest.entry] as const, ["Approval", manifest.approval] as const, ["Timeout", `${manifest.timeoutSeconds} s`] as const]
              : manifest.tools.map(
                  (tool) => [`Tool ${tool.name}`, `${tool.command.join(" ")} (output ${tool.output}, approval ${tool.approval}, timeout ${tool.timeoutSeconds} s)`] as const
                )
        printFields(format, [
          ["Name", entry.name],
          ["Source", entry.source],
          ["State", entry.state],
          ["Directory", entry.dir],
          ["Manifest", entry.manifestFile],
          ["Runner", manifest?.runner ?? "-"],
          ["Catalogs", manifest?.catalogs.join(", ") ?? "-"],
          ["Trusted", trustCell(found.home, found.workspace, entry)],
          ...tools,
          ...(entry.problem === undefined ? [] : [["Problem", entry.problem] as const])
        ])
      })
    )
  ).pipe(Command.withDescription("Show a tool set: its manifest, its tools and what they run"))

const change = (verb: "enable" | "disable", setExitCode: (code: number) => void) =>
  Command.make(verb, { home: homeOption, workspace: workspaceOption, source: sourceOption, name: nameArg }, ({ home, workspace, source, name }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const result = yield* setToolSetEnabled(homeFrom(home), workspaceFrom(workspace), name, verb === "enable", Option.getOrUndefined(source) as ToolSource | undefined)
        writeInertStdout(`${result.message}\n`)
      })
    )
  ).pipe(Command.withDescription(`${verb === "enable" ? "Enable" : "Disable"} a tool set (writes "enabled": ${verb === "enable"} in its tools.json, nothing else)`))

export const toolsCommand = (setExitCode: (code: number) => void) =>
  Command.make("tools").pipe(
    Command.withDescription("External tool sets: ~/.crystal/tools/<dir>/tools.json and <workspace>/.crystal/tools/<dir>/tools.json"),
    Command.withSubcommands([list(setExitCode), show(setExitCode), change("enable", setExitCode), change("disable", setExitCode)])
  )
