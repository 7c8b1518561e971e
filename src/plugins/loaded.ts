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
}

/** Loading's outcome: the plugins in name order, and a one-line note per folder skipped (naming the file and why). */
export interface LoadResult {
  readonly plugins: ReadonlyArray<LoadedPlugin>
  readonly notes: ReadonlyArray<string>
}
