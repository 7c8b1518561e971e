/**
 * The PluginLoader service (SPEC H1–H4, B1): the plugins this process loaded from the home (in
 * name order, once per process) and the hook pipeline every engine seam calls. With no plugins the
 * pipeline is idle and each seam returns its input at once.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { rawHookNote, summarizePlugin } from "./describe.ts"
import type { LoadedPlugin } from "./loaded.ts"
import { makeHookPipeline, type HookPipeline, type PipelineOptions } from "./pipeline.ts"

export interface PluginLoaderShape {
  readonly plugins: ReadonlyArray<LoadedPlugin>
  /** The notes loading wrote (a folder skipped, a hook name unknown), for /plugins. */
  readonly loadNotes: ReadonlyArray<string>
  readonly hooks: HookPipeline
}

export interface PluginLoaderOptions extends PipelineOptions {
  readonly loadNotes?: ReadonlyArray<string> | undefined
}

/** Plugins that registered at least one raw hook: the host says so at start (seed 001). */
export const rawHookNotes = (plugins: ReadonlyArray<LoadedPlugin>): ReadonlyArray<string> =>
  plugins.filter((plugin) => summarizePlugin(plugin).rawHooks.length > 0).map((plugin) => rawHookNote(plugin.name))

export class PluginLoader extends Context.Tag("crystal/PluginLoader")<PluginLoader, PluginLoaderShape>() {
  static readonly make = (options: PluginLoaderOptions): PluginLoaderShape => ({
    plugins: options.plugins,
    loadNotes: options.loadNotes ?? [],
    hooks: makeHookPipeline(options)
  })

  static readonly layer = (options: PluginLoaderOptions): Layer.Layer<PluginLoader> => Layer.sync(PluginLoader, () => PluginLoader.make(options))

  /** For tests: these plugins (none by default), notes dropped unless `note` is given, a short budget if asked. */
  static readonly layerTest = (
    plugins: ReadonlyArray<LoadedPlugin> = [],
    options: Partial<Omit<PluginLoaderOptions, "plugins">> = {}
  ): Layer.Layer<PluginLoader> => PluginLoader.layer({ plugins, note: () => Effect.void, ...options })
}
