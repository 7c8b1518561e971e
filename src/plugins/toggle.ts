/**
 * Enabling and disabling a plugin: `enabled` in its plugin.json, and nothing else in the file
 * (`crystal plugins enable|disable`). An unknown folder or a broken manifest is refused with one
 * line and the file is never touched. A running session keeps the plugins it loaded.
 */
import * as Effect from "effect/Effect"
import { discoverPlugins, type DiscoveredPlugin, type PluginDiscovery } from "./discover.ts"
import { PluginError, writePluginEnabled } from "./manifest.ts"

export interface PluginToggle {
  readonly written: boolean
  readonly message: string
}

/** The plugin in folder `name`, or the one-line refusal naming what is there. */
export const findPlugin = (discovery: PluginDiscovery, name: string): Effect.Effect<DiscoveredPlugin, PluginError> => {
  const found = discovery.plugins.find((plugin) => plugin.folder === name)
  if (found !== undefined) return Effect.succeed(found)
  const known = discovery.plugins.map((plugin) => plugin.folder)
  return Effect.fail(
    new PluginError({ message: `no plugin '${name}' in ${discovery.dir} (${known.length === 0 ? "there are none" : `available: ${known.join(", ")}`})` })
  )
}

export const setPluginEnabled = (home: string, name: string, enabled: boolean): Effect.Effect<PluginToggle, PluginError> =>
  Effect.gen(function* () {
    const found = yield* findPlugin(discoverPlugins(home), name)
    const verb = enabled ? "enable" : "disable"
    if (found.status === "broken") return yield* Effect.fail(new PluginError({ message: `cannot ${verb} plugin '${name}': ${found.problem}; nothing was written.` }))
    const written = yield* writePluginEnabled(found.manifest, enabled)
    const message = !written
      ? `Plugin '${name}' is already ${verb}d; nothing changed.`
      : enabled
        ? `Enabled plugin '${name}' (${found.manifest.file}); sessions started from now on load it.`
        : `Disabled plugin '${name}' (${found.manifest.file}); sessions started from now on do not load it.`
    return { written, message }
  })
