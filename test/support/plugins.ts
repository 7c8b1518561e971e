/** Plugins as a loader would hand them over: plain objects of the published shape. */
import * as Effect from "effect/Effect"
import type { Plugin, PluginHooks, PluginRawHooks } from "../../src/plugins/api.ts"
import type { LoadedPlugin } from "../../src/plugins/loaded.ts"
import type { ImageRef } from "../../src/session/items.ts"
import { makeHookPipeline, type HookPipeline } from "../../src/plugins/pipeline.ts"

export const loaded = (name: string, plugin: Plugin): LoadedPlugin => ({ name, folder: name, dir: `/plugins/${name}`, entry: `/plugins/${name}/index.js`, plugin })

export const withHooks = (name: string, hooks: PluginHooks, rawHooks?: PluginRawHooks): LoadedPlugin =>
  loaded(name, { hooks, ...(rawHooks === undefined ? {} : { rawHooks }) })

export const withRawHooks = (name: string, rawHooks: PluginRawHooks): LoadedPlugin => loaded(name, { rawHooks })

/** A pipeline over `plugins` whose notes are collected in `notes`. */
export const pipelineOf = (plugins: ReadonlyArray<LoadedPlugin>, options: { readonly budgetMs?: number; readonly configFile?: string } = {}) => {
  const notes: Array<string> = []
  const pipeline: HookPipeline = makeHookPipeline({ plugins, note: (text) => Effect.sync(() => notes.push(text)), ...options })
  return { pipeline, notes }
}

/** Runs a pipeline seam. */
export const run = <A>(effect: Effect.Effect<A>): Promise<A> => Effect.runPromise(effect)

/** An image the session holds, named as plugins name it (its content hash). */
export const heldPng: ImageRef = { sha256: "a".repeat(64), mime: "image/png", marker: "[Image #1]" }
