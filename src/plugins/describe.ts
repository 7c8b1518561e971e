/**
 * One loaded plugin described for the operator: its hooks, its raw hooks (flagged as privileged),
 * its placeholders and the notes loading it caused. Pure: `crystal plugins show` prints these
 * lines, and `/plugins` in a session can print the same.
 */
import { hookNames, rawHookNames } from "./api.ts"
import type { LoadedPlugin } from "./loaded.ts"

export interface PluginSummary {
  readonly hooks: ReadonlyArray<string>
  readonly rawHooks: ReadonlyArray<string>
  readonly placeholders: ReadonlyArray<string>
}

/** Hooks and raw hooks in the API's order, placeholders sorted. */
export const summarizePlugin = (loaded: LoadedPlugin): PluginSummary => {
  const { hooks, rawHooks, placeholders } = loaded.plugin
  return {
    hooks: hookNames.filter((name) => typeof hooks?.[name] === "function"),
    rawHooks: rawHookNames.filter((name) => typeof rawHooks?.[name] === "function"),
    placeholders: Object.keys(placeholders ?? {}).sort()
  }
}

/** The note the host writes for a plugin with a raw hook (SPEC H3). */
export const rawHookNote = (name: string): string => `Plugin '${name}' registered a raw hook.`

const list = (names: ReadonlyArray<string>): string => (names.length === 0 ? "none" : names.join(", "))

/** Key/value pairs (for `--format text` and tables); notes are separate. */
export const pluginFields = (loaded: LoadedPlugin): ReadonlyArray<readonly [string, string]> => {
  const summary = summarizePlugin(loaded)
  return [
    ["Name", loaded.name],
    ["Folder", loaded.folder],
    ["Entry", loaded.entry],
    ["Hooks", list(summary.hooks)],
    ["Raw hooks", summary.rawHooks.length === 0 ? "none" : `${list(summary.rawHooks)} (privileged: not held to the hook rules)`],
    ["Placeholders", list(summary.placeholders.map((name) => `{{${name}}}`))]
  ]
}

/** The notes shown with a plugin: the raw-hook notice first, then what loading reported. */
export const pluginNotes = (loaded: LoadedPlugin): ReadonlyArray<string> => [
  ...(summarizePlugin(loaded).rawHooks.length > 0 ? [rawHookNote(loaded.name)] : []),
  ...(loaded.notes ?? [])
]

/** The description as lines: a title, aligned fields, then one line per note. */
export const describePlugin = (loaded: LoadedPlugin): ReadonlyArray<string> => {
  const fields = pluginFields(loaded).filter(([key]) => key !== "Name")
  const width = Math.max(...fields.map(([key]) => key.length))
  return [
    `Plugin '${loaded.name}'`,
    ...fields.map(([key, value]) => `  ${key.padEnd(width)}  ${value}`),
    ...pluginNotes(loaded).map((note) => `  Note: ${note}`)
  ]
}
