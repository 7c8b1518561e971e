import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { setPluginEnabled } from "../../../src/plugins/toggle.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))

describe("enabling and disabling a plugin", () => {
  it("writes only enabled and says what it did; a second time changes nothing", async () => {
    const home = await tempDir()
    const text = '{ "entry": "index.mjs",   "enabled": true, "z": 1 }'
    await writeTree(home, { "plugins/p/plugin.json": text, "plugins/p/index.mjs": "" })
    const file = path.join(home, "plugins", "p", "plugin.json")
    expect(await run(setPluginEnabled(home, "p", false))).toMatchObject({
      right: { written: true, message: `Disabled plugin 'p' (${file}); sessions started from now on do not load it.` }
    })
    expect(await fs.readFile(file, "utf8")).toBe('{ "entry": "index.mjs",   "enabled": false, "z": 1 }')
    expect(await run(setPluginEnabled(home, "p", false))).toMatchObject({ right: { written: false, message: "Plugin 'p' is already disabled; nothing changed." } })
    expect(await run(setPluginEnabled(home, "p", true))).toMatchObject({ right: { written: true } })
    expect(await fs.readFile(file, "utf8")).toBe(text)
  })

  it("refuses an unknown plugin, naming the ones there are", async () => {
    const home = await tempDir()
    expect(await run(setPluginEnabled(home, "nope", true))).toMatchObject({
      left: { _tag: "PluginError", message: `no plugin 'nope' in ${path.join(home, "plugins")} (there are none)` }
    })
    await writeTree(home, { "plugins/a/plugin.json": '{"entry":"x.js"}', "plugins/a/x.js": "" })
    expect(await run(setPluginEnabled(home, "nope", true))).toMatchObject({
      left: { message: `no plugin 'nope' in ${path.join(home, "plugins")} (available: a)` }
    })
  })

  it("refuses a broken manifest with one line and never touches it", async () => {
    const home = await tempDir()
    const text = '{"entry":"index.mjs","enabled":"yes"}'
    await writeTree(home, { "plugins/p/plugin.json": text, "plugins/p/index.mjs": "" })
    const file = path.join(home, "plugins", "p", "plugin.json")
    expect(await run(setPluginEnabled(home, "p", false))).toMatchObject({
      left: { message: `cannot disable plugin 'p': ${file}: "enabled" must be true or false (got "yes"); nothing was written.` }
    })
    expect(await fs.readFile(file, "utf8")).toBe(text)
  })
})
