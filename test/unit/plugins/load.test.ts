import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { hookNames } from "../../../src/plugins/api.ts"
import { discoverPlugins } from "../../../src/plugins/discover.ts"
import { firstLine } from "../../../src/plugins/error-line.ts"
import { loadDiscoveredPlugins, loadPlugins } from "../../../src/plugins/load.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

/** A module that leaves a file beside itself when it is evaluated: proof that it was imported. */
const marking = (body: string) =>
  `import { writeFileSync } from "node:fs"\nwriteFileSync(new URL("./imported", import.meta.url), "yes")\n${body}\n`

const plugin = (folder: string, entry: string, source: string, manifest: Record<string, unknown> = {}) => ({
  [`plugins/${folder}/plugin.json`]: JSON.stringify({ entry, ...manifest }),
  [`plugins/${folder}/${entry}`]: source
})

const homeWith = async (files: Record<string, string>): Promise<string> => {
  const home = await tempDir()
  await writeTree(home, files)
  return home
}

const load = (home: string) => loadDiscoveredPlugins(discoverPlugins(home))
const entryOf = (home: string, folder: string, entry: string) => path.join(home, "plugins", folder, entry)

describe("loading plugins", () => {
  it("imports .mjs and .js entries in folder-name order and gives each a clean Plugin", async () => {
    const home = await homeWith({
      ...plugin("b-second", "index.js", 'export default { name: "Second", hooks: { onPrompt: () => "from b" } }'),
      ...plugin("a-first", "main.mjs", 'export default { hooks: { onPrompt() { return this.text }, text: "x" }, placeholders: { branch: () => "main" } }'),
      "plugins/b-second/package.json": '{"type":"module"}'
    })
    const result = await load(home)
    expect(result.plugins.map((p) => [p.name, p.folder, p.entry])).toEqual([
      ["a-first", "a-first", entryOf(home, "a-first", "main.mjs")],
      ["Second", "b-second", entryOf(home, "b-second", "index.js")]
    ])
    const [first, second] = result.plugins
    // `this` inside a hook is the hooks object the author wrote (its other keys are notes, not hooks).
    expect(await first?.plugin.hooks?.onPrompt?.({ mode: "work" })).toBe("x")
    expect(Object.keys(first?.plugin.hooks ?? {})).toEqual(["onPrompt"])
    expect(await first?.plugin.placeholders?.["branch"]?.()).toBe("main")
    expect(await second?.plugin.hooks?.onPrompt?.({ mode: "work" })).toBe("from b")
    expect(result.notes).toEqual([
      `${entryOf(home, "a-first", "main.mjs")}: "hooks.text" is not a known hook; ignored. Known: ${hookNames.join(", ")}.`
    ])
    expect(first?.notes).toEqual(result.notes)
    expect(second?.notes).toEqual([])
  })

  it("takes a .js entry with module syntax and no package.json, and a CommonJS one (module.exports is its default)", async () => {
    const home = await homeWith({
      ...plugin("esm", "index.js", 'export default { hooks: { onPrompt: () => "esm" } }'),
      ...plugin("cjs", "index.js", 'module.exports = { name: "Common", hooks: { onPrompt: () => "cjs" } }')
    })
    const result = await load(home)
    expect(result.notes).toEqual([])
    expect(await Promise.all(result.plugins.map(async (p) => `${p.name}:${await p.plugin.hooks?.onPrompt?.({ mode: "plan" })}`))).toEqual([
      "Common:cjs",
      "esm:esm"
    ])
  })

  it("never imports a disabled plugin, and imports nothing when none is enabled", async () => {
    const home = await homeWith(plugin("off", "index.mjs", marking("export default {}"), { enabled: false }))
    expect(await load(home)).toEqual({ plugins: [], notes: [], skipped: [] })
    expect(fs.existsSync(path.join(home, "plugins", "off", "imported"))).toBe(false)
  })

  it("does import an enabled one (the marker above can tell)", async () => {
    const home = await homeWith(plugin("on", "index.mjs", marking("export default {}")))
    expect((await load(home)).plugins.map((p) => p.name)).toEqual(["on"])
    expect(fs.existsSync(path.join(home, "plugins", "on", "imported"))).toBe(true)
  })

  it("skips a module that throws while loading, with the error's first line and no stack", async () => {
    const home = await homeWith({
      ...plugin("boom", "index.mjs", 'throw new TypeError("bad setup\\n    at somewhere (x.js:1:1)")'),
      ...plugin("fine", "index.mjs", "export default {}")
    })
    const result = await load(home)
    expect(result.plugins.map((p) => p.name)).toEqual(["fine"])
    expect(result.notes).toEqual([`${entryOf(home, "boom", "index.mjs")}: failed to load (TypeError: bad setup); plugin 'boom' skipped.`])
    expect(result.skipped).toEqual([{ folder: "boom", dir: path.join(home, "plugins", "boom"), note: result.notes[0] }])
  })

  it("skips a module with a syntax error, and one that does not settle within the import budget", async () => {
    const home = await homeWith({
      ...plugin("broken-syntax", "index.mjs", "export default {"),
      ...plugin("never", "index.mjs", "await new Promise(() => {})\nexport default {}")
    })
    const result = await loadDiscoveredPlugins(discoverPlugins(home), { importBudgetMs: 200 })
    expect(result.plugins).toEqual([])
    expect(result.notes[0]).toMatch(new RegExp(`^${entryOf(home, "broken-syntax", "index.mjs").replaceAll(".", "\\.")}: failed to load \\(.+\\); plugin 'broken-syntax' skipped\\.$`))
    expect(result.notes[0]).not.toContain("\n")
    expect(result.notes[1]).toBe(
      `${entryOf(home, "never", "index.mjs")}: did not finish loading within 0.2 s (a top-level await that never settles?); plugin 'never' skipped.`
    )
  })

  it.each([
    ["export const hooks = {}", "has no default export (expected `export default { hooks: { … } }`)"],
    ["export default 42", "the default export must be an object with hooks, rawHooks or placeholders (got number 42)"],
    ["export default () => ({})", "the default export must be an object with hooks, rawHooks or placeholders (got a function)"],
    ["export default [1]", "the default export must be an object with hooks, rawHooks or placeholders (got an array)"],
    ['export default { name: "" }', 'the default export has "name" that is not a non-empty string on one line (got "")'],
    ['export default { name: "a\\nb" }', 'the default export has "name" that is not a non-empty string on one line (got "a\\nb")'],
    ["export default { name: 3 }", 'the default export has "name" that is not a non-empty string on one line (got number 3)'],
    ['export default { hooks: "onPrompt" }', 'the default export has "hooks" that is not an object (got "onPrompt")'],
    ['export default { hooks: { onPrompt: "text" } }', 'the default export has "hooks.onPrompt" that is not a function (got "text")'],
    ["export default { rawHooks: { rewritePrompt: {} } }", 'the default export has "rawHooks.rewritePrompt" that is not a function (got an object)'],
    ["export default { placeholders: [] }", 'the default export has "placeholders" that is not an object (got an array)'],
    ['export default { get hooks() { throw new Error("no") } }', "the default export threw while it was read (no)"]
  ])("skips a wrong shape: %s", async (source, why) => {
    const home = await homeWith(plugin("p", "index.mjs", source))
    const result = await load(home)
    expect(result.plugins).toEqual([])
    expect(result.notes).toEqual([`${entryOf(home, "p", "index.mjs")}: ${why}; plugin 'p' skipped.`])
  })

  it("ignores unknown hook keys and bad placeholders with a note each, and keeps the rest", async () => {
    const home = await homeWith(
      plugin(
        "p",
        "index.mjs",
        `export default {
          hooks: { onPrompt: () => "x", onPromt: () => "typo", rewritePrompt: () => "" },
          rawHooks: { rewriteApproval: (c) => c, onPrompt: () => "" },
          placeholders: { good_one: () => "1", Bad: () => "2", "9x": () => "3", notfn: "4" }
        }`
      )
    )
    const result = await load(home)
    const entry = entryOf(home, "p", "index.mjs")
    expect(result.plugins.map((p) => Object.keys(p.plugin.hooks ?? {}))).toEqual([["onPrompt"]])
    expect(result.plugins.map((p) => Object.keys(p.plugin.rawHooks ?? {}))).toEqual([["rewriteApproval"]])
    expect(result.plugins.map((p) => Object.keys(p.plugin.placeholders ?? {}))).toEqual([["good_one"]])
    expect(result.notes).toEqual([
      `${entry}: "hooks.onPromt" is not a known hook; ignored. Known: ${hookNames.join(", ")}.`,
      `${entry}: "hooks.rewritePrompt" is not a known hook ("rewritePrompt" belongs under "rawHooks"); ignored. Known: ${hookNames.join(", ")}.`,
      `${entry}: "rawHooks.onPrompt" is not a known raw hook ("onPrompt" belongs under "hooks"); ignored. Known: rebuildModel, rewritePrompt, rewriteCompaction, rewriteApproval.`,
      `${entry}: placeholder "Bad" is refused: a plugin placeholder's name must match ^[a-z][a-z0-9_]*$; ignored.`,
      `${entry}: placeholder "9x" is refused: a plugin placeholder's name must match ^[a-z][a-z0-9_]*$; ignored.`,
      `${entry}: placeholder "notfn" is not a function (got "4"); ignored.`
    ])
  })

  it("skips the second of two plugins whose names collide (a folder's name is the default name)", async () => {
    const home = await homeWith({
      ...plugin("alpha", "index.mjs", "export default {}"),
      ...plugin("beta", "index.mjs", 'export default { name: "alpha" }'),
      ...plugin("delta", "index.mjs", 'export default { name: "Same" }'),
      ...plugin("gamma", "index.mjs", 'export default { name: "Same" }')
    })
    const result = await load(home)
    expect(result.plugins.map((p) => `${p.folder}=${p.name}`)).toEqual(["alpha=alpha", "delta=Same"])
    expect(result.notes).toEqual([
      `${entryOf(home, "beta", "index.mjs")}: the plugin name 'alpha' is already taken by the plugin in folder 'alpha'; plugin 'beta' skipped.`,
      `${entryOf(home, "gamma", "index.mjs")}: the plugin name 'Same' is already taken by the plugin in folder 'delta'; plugin 'gamma' skipped.`
    ])
  })

  it("carries discovery's notes: bad folder names first, then broken manifests in name order", async () => {
    const home = await homeWith({
      ...plugin("b", "index.mjs", "export default {}"),
      "plugins/a/plugin.json": '{"entry":"../../escape.mjs"}',
      "escape.mjs": marking("export default {}"),
      "plugins/_bad/plugin.json": '{"entry":"index.mjs"}'
    })
    const result = await load(home)
    expect(result.plugins.map((p) => p.name)).toEqual(["b"])
    expect(result.notes).toEqual([
      expect.stringContaining(`${path.join(home, "plugins", "_bad")}: the name of a plugin folder must be`),
      `${path.join(home, "plugins", "a", "plugin.json")}: "entry" must stay inside the plugin's folder (got "../../escape.mjs"); plugin 'a' skipped.`
    ])
    expect(fs.existsSync(path.join(home, "imported"))).toBe(false)
  })

  it("does not import an entry that escapes through a symbolic link", async () => {
    const home = await homeWith({ "plugins/p/plugin.json": '{"entry":"index.mjs"}', "outside/index.mjs": marking("export default {}") })
    fs.symlinkSync(path.join(home, "outside", "index.mjs"), path.join(home, "plugins", "p", "index.mjs"))
    const result = await load(home)
    expect(result.plugins).toEqual([])
    expect(result.notes).toEqual([expect.stringMatching(/plugin\.json: "entry" leads outside the plugin's folder through a symbolic link .*; plugin 'p' skipped\.$/)])
    expect(fs.existsSync(path.join(home, "outside", "imported"))).toBe(false)
  })

  it("loads once per process per home", async () => {
    const home = await homeWith(plugin("p", "index.mjs", "export default {}"))
    const first = loadPlugins(home)
    expect(loadPlugins(`${home}/plugins/..`)).toBe(first)
    await first
    fs.rmSync(path.join(home, "plugins"), { recursive: true })
    expect((await loadPlugins(home)).plugins.map((p) => p.name)).toEqual(["p"])
    expect(await loadPlugins(await tempDir())).toEqual({ plugins: [], notes: [], skipped: [] })
  })
})

describe("firstLine", () => {
  it.each([
    [new Error("one\ntwo"), "one"],
    [new SyntaxError("Unexpected token"), "SyntaxError: Unexpected token"],
    [new Error("\n\n  later line"), "later line"],
    ["a string\nmore", "a string"],
    [{ code: 1 }, 'threw {"code":1}'],
    [undefined, "threw undefined"],
    [new Error(""), "no message"],
    [new Error("x".repeat(400)), `${"x".repeat(299)}…`]
  ])("%s → %s", (error, line) => {
    expect(firstLine(error)).toBe(line)
  })
})
