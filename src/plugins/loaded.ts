/** What loading produced: one plugin whose entry module imported and whose default export has the Plugin shape. */
import type { Plugin } from "./api.ts"

export interface LoadedPlugin {
  /** `plugin.name`, else the folder's name: what every note and listing calls it. */
  readonly name: string
  /** The folder's name under ~/.crystal/plugins. */
  readonly folder: string
  /** The folder's absolute path. */
  readonly dir: string
  /** The entry module's absolute path. */
  readonly entry: string
  readonly plugin: Plugin
  /**
   * Added by the plugins branch: notes about this plugin that did not stop it loading (an unknown
   * hook key, a refused placeholder), each also in `LoadResult.notes`. Optional so that a plugin
   * built by hand (a test layer) needs none.
   */
  readonly notes?: ReadonlyArray<string> | undefined
}

/** A plugin folder passed over while loading, with its one-line note. */
export interface SkippedPlugin {
  readonly folder: string
  readonly dir: string
  readonly note: string
}

/** Loading's outcome: the plugins in name order, and a one-line note per folder skipped (naming the file and why). */
export interface LoadResult {
  readonly plugins: ReadonlyArray<LoadedPlugin>
  readonly notes: ReadonlyArray<string>
  /** Added by the plugins branch: the folders passed over, each with its note (also in `notes`). */
  readonly skipped?: ReadonlyArray<SkippedPlugin> | undefined
}
