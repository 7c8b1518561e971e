/**
 * The plugin folders of a home (`<home>/plugins/<folder>/plugin.json`), in name order, with what
 * their manifests say: enabled, disabled, or broken and why. Imports nothing: `crystal plugins
 * list` and the loader both start here. A missing or empty plugins folder costs one readdir.
 * Home only: a workspace never brings plugins (SPEC B2).
 */
import * as path from "node:path"
import { listManifestFolders } from "../config/manifest-reader.ts"
import { isValidPluginFolderName, pluginFolderNameRule, readPluginManifest, type PluginManifest } from "./manifest.ts"

export const pluginsDir = (home: string): string => path.join(home, "plugins")

export type DiscoveredPlugin =
  | { readonly folder: string; readonly dir: string; readonly status: "enabled" | "disabled"; readonly manifest: PluginManifest }
  | {
      readonly folder: string
      readonly dir: string
      readonly status: "broken"
      /** "<file>: <problem>", naming the field. */
      readonly problem: string
      /** The one-line note reported for it. */
      readonly note: string
    }

export interface PluginDiscovery {
  /** `<home>/plugins`. */
  readonly dir: string
  /** Every folder with a valid name, sorted by name, broken ones included. */
  readonly plugins: ReadonlyArray<DiscoveredPlugin>
  /** One line per folder passed over (a bad name, a broken manifest) and for an unreadable plugins folder. */
  readonly notes: ReadonlyArray<string>
}

/** Reads `<home>/plugins` afresh. Never writes, never imports. */
export const discoverPlugins = (home: string): PluginDiscovery => {
  const dir = pluginsDir(home)
  const notes: Array<string> = []
  const listed = listManifestFolders(dir, isValidPluginFolderName)
  if ("unreadable" in listed) {
    notes.push(`${dir}: cannot be read (${listed.unreadable}); no plugins are loaded.`)
    return { dir, plugins: [], notes }
  }
  const plugins: Array<DiscoveredPlugin> = []
  for (const { name: folder, dir: full, validName } of listed.folders) {
    if (!validName) {
      notes.push(`${full}: the name of a plugin folder must be ${pluginFolderNameRule}; skipped.`)
      continue
    }
    const read = readPluginManifest(full)
    if (read._tag === "Manifest") {
      plugins.push({ folder, dir: full, status: read.manifest.enabled ? "enabled" : "disabled", manifest: read.manifest })
      continue
    }
    const problem = `${read.file}: ${read.problem}`
    const note = `${problem}; plugin '${folder}' skipped.`
    notes.push(note)
    plugins.push({ folder, dir: full, status: "broken", problem, note })
  }
  return { dir, plugins, notes }
}
