/**
 * `crystal plugins list|show|enable|disable` (SPEC E4, H1): the home's plugins outside a session.
 * Home only (a workspace never brings plugins), so there is no --workspace or --source. `list`
 * reads the manifests and imports nothing; `show` imports the enabled plugins the way a session
 * does (it is the operator's own code) and describes one; a disabled plugin is never imported.
 * Tables by default, `--format text` for tab-separated lines; a problem is one line on stderr and
 * exit code 1.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import { describePlugin, pluginFields, pluginNotes } from "../plugins/describe.ts"
import { discoverPlugins, type DiscoveredPlugin } from "../plugins/discover.ts"
import { loadPlugins } from "../plugins/load.ts"
import { PluginError } from "../plugins/manifest.ts"
import { findPlugin, setPluginEnabled } from "../plugins/toggle.ts"
import { writeInertStdout } from "../terminal/output.ts"
import { formatOption, handle, homeFrom, homeOption, printFields, printNotes, printRows, yesNo } from "./listing.ts"

const nameArg = Args.text({ name: "NAME" }).pipe(Args.withDescription("A plugin (its folder's name under ~/.crystal/plugins)"))

const listCells = (plugin: DiscoveredPlugin): ReadonlyArray<string> =>
  plugin.status === "broken"
    ? [plugin.folder, "-", "-", `broken: ${plugin.problem}`]
    : [plugin.folder, yesNo(plugin.status === "enabled"), plugin.manifest.entry, "ok"]

const list = (setExitCode: (code: number) => void) =>
  Command.make("list", { home: homeOption, format: formatOption }, ({ home, format }) =>
    handle(setExitCode)(() =>
      Effect.sync(() => {
        const discovery = discoverPlugins(homeFrom(home))
        // A broken manifest is its row's status; only folders without a row are notes here.
        const broken = new Set(discovery.plugins.flatMap((plugin) => (plugin.status === "broken" ? [plugin.note] : [])))
        printNotes(discovery.notes.filter((note) => !broken.has(note)))
        printRows(format, ["NAME", "ENABLED", "ENTRY", "STATUS"], discovery.plugins.map(listCells))
      })
    )
  ).pipe(Command.withDescription("List the plugins in ~/.crystal/plugins (reads each plugin.json; imports nothing)"))

const show = (setExitCode: (code: number) => void) =>
  Command.make("show", { home: homeOption, format: formatOption, name: nameArg }, ({ home, format, name }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const dir = homeFrom(home)
        const found = yield* findPlugin(discoverPlugins(dir), name)
        if (found.status === "broken") return yield* Effect.fail(new PluginError({ message: `the plugin '${name}' cannot be used: ${found.problem}` }))
        if (found.status === "disabled") {
          printFields(format, [
            ["Name", found.folder],
            ["Folder", found.folder],
            ["Entry", found.manifest.entryPath],
            ["Enabled", "no"],
            ["Loaded", `no: disabled plugins are never imported (crystal plugins enable ${found.folder})`]
          ])
          return
        }
        const result = yield* Effect.promise(() => loadPlugins(dir))
        const loaded = result.plugins.find((plugin) => plugin.folder === found.folder)
        if (loaded === undefined) {
          const skipped = result.skipped?.find((plugin) => plugin.folder === found.folder)
          return yield* Effect.fail(new PluginError({ message: skipped?.note ?? `plugin '${name}' was not loaded` }))
        }
        if (format === "text") {
          printFields(format, [...pluginFields(loaded), ["Enabled", "yes"]])
          writeInertStdout(pluginNotes(loaded).map((note) => `note\t${note}\n`).join(""))
        } else {
          writeInertStdout(describePlugin(loaded).map((line) => `${line}\n`).join(""))
        }
      })
    )
  ).pipe(Command.withDescription("Show a plugin: load it as a session would, and list its hooks, raw hooks, placeholders and notes"))

const change = (verb: "enable" | "disable", setExitCode: (code: number) => void) =>
  Command.make(verb, { home: homeOption, name: nameArg }, ({ home, name }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const result = yield* setPluginEnabled(homeFrom(home), name, verb === "enable")
        writeInertStdout(`${result.message}\n`)
      })
    )
  ).pipe(
    Command.withDescription(
      verb === "enable"
        ? "Enable a plugin (writes enabled: true in its plugin.json, nothing else)"
        : "Disable a plugin (writes enabled: false in its plugin.json, nothing else)"
    )
  )

export const pluginsCommand = (setExitCode: (code: number) => void) =>
  Command.make("plugins").pipe(
    Command.withDescription("Plugins: ES modules in ~/.crystal/plugins that add hooks, raw hooks and placeholders (docs/plugins.md)"),
    Command.withSubcommands([list(setExitCode), show(setExitCode), change("enable", setExitCode), change("disable", setExitCode)])
  )
