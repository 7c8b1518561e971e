/**
 * Loading (SPEC H1): each enabled plugin's entry module, imported in folder-name order, one after
 * the other, with `await import(fileURL)` — from the compiled binary (Bun: .js, .mjs and .ts) and
 * from source under Node (.js and .mjs). Its default export is checked against the Plugin shape
 * (shape.ts). A folder that cannot be used — a broken manifest, a module that throws while it
 * loads, no default export, a wrong shape, a name another plugin already took, an import that has
 * not settled within the budget — is skipped with one note naming the file and why; loading itself
 * never fails. Disabled plugins are never imported. Once per process per home.
 */
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { discoverPlugins, type PluginDiscovery } from "./discover.ts"
import type { LoadedPlugin, LoadResult, SkippedPlugin } from "./loaded.ts"
import { firstLine } from "./error-line.ts"
import { checkPluginShape } from "./shape.ts"

/** How long one entry module may take to import (its top-level await included). */
export const pluginImportBudgetMs = 10_000

export interface LoadOptions {
  readonly importBudgetMs?: number
}

type Imported = { readonly _tag: "Module"; readonly module: Record<string, unknown> } | { readonly _tag: "Failed"; readonly why: string }

const importEntry = async (entry: string, budgetMs: number): Promise<Imported> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const overtime = new Promise<Imported>((resolve) => {
    timer = setTimeout(
      () => resolve({ _tag: "Failed", why: `did not finish loading within ${budgetMs / 1000} s (a top-level await that never settles?)` }),
      budgetMs
    )
  })
  const imported = (import(pathToFileURL(entry).href) as Promise<Record<string, unknown>>).then(
    (module): Imported => ({ _tag: "Module", module }),
    (error: unknown): Imported => ({ _tag: "Failed", why: `failed to load (${firstLine(error)})` })
  )
  try {
    return await Promise.race([imported, overtime])
  } finally {
    clearTimeout(timer)
  }
}

/** Imports the enabled plugins of a discovery, in its (name) order. Never throws. */
export const loadDiscoveredPlugins = async (discovery: PluginDiscovery, options: LoadOptions = {}): Promise<LoadResult> => {
  const budget = options.importBudgetMs ?? pluginImportBudgetMs
  const plugins: Array<LoadedPlugin> = []
  const skipped: Array<SkippedPlugin> = []
  const notes: Array<string> = []
  const skip = (folder: string, dir: string, note: string) => {
    skipped.push({ folder, dir, note })
    notes.push(note)
  }
  for (const found of discovery.plugins) {
    if (found.status === "broken") {
      skip(found.folder, found.dir, found.note)
      continue
    }
    if (found.status === "disabled") continue
    const entry = found.manifest.entryPath
    const imported = await importEntry(entry, budget)
    if (imported._tag === "Failed") {
      skip(found.folder, found.dir, `${entry}: ${imported.why}; plugin '${found.folder}' skipped.`)
      continue
    }
    if (!("default" in imported.module) || imported.module["default"] === undefined) {
      skip(found.folder, found.dir, `${entry}: has no default export (expected \`export default { hooks: { … } }\`); plugin '${found.folder}' skipped.`)
      continue
    }
    let shape: ReturnType<typeof checkPluginShape>
    try {
      shape = checkPluginShape(imported.module["default"], found.folder, entry)
    } catch (error) {
      // A getter or a Proxy on the exported object threw while it was read.
      shape = { _tag: "Wrong", why: `threw while it was read (${firstLine(error)})` }
    }
    if (shape._tag === "Wrong") {
      skip(found.folder, found.dir, `${entry}: the default export ${shape.why}; plugin '${found.folder}' skipped.`)
      continue
    }
    const taken = plugins.find((other) => other.name === shape.plugin.name)
    if (taken !== undefined) {
      skip(
        found.folder,
        found.dir,
        `${entry}: the plugin name '${shape.plugin.name}' is already taken by the plugin in folder '${taken.folder}'; plugin '${found.folder}' skipped.`
      )
      continue
    }
    notes.push(...shape.notes)
    plugins.push({ name: shape.plugin.name, folder: found.folder, dir: found.dir, entry, plugin: shape.plugin, notes: shape.notes })
  }
  // Notes about folders passed over before any plugin was imported (bad folder names) come first.
  const discoveryOnly = discovery.notes.filter((note) => !skipped.some((item) => item.note === note))
  return { plugins, notes: [...discoveryOnly, ...notes], skipped }
}

const loaded = new Map<string, Promise<LoadResult>>()

/** The plugins of `home` (CRYSTAL_HOME or ~/.crystal): discovered and imported once per process. */
export const loadPlugins = (home: string): Promise<LoadResult> => {
  const key = path.resolve(home)
  const known = loaded.get(key)
  if (known !== undefined) return known
  const result = loadDiscoveredPlugins(discoverPlugins(key))
  loaded.set(key, result)
  return result
}
