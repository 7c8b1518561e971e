import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { discoverPlugins } from "../../../src/plugins/discover.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const statuses = (home: string) =>
  discoverPlugins(home).plugins.map((plugin) => (plugin.status === "broken" ? `${plugin.folder}: broken` : `${plugin.folder}: ${plugin.status}`))

describe("plugin discovery", () => {
  it("is empty, with no notes, when the plugins folder is missing or empty", async () => {
    const home = await tempDir()
    expect(discoverPlugins(home)).toEqual({ dir: path.join(home, "plugins"), plugins: [], notes: [] })
    await fs.mkdir(path.join(home, "plugins"))
    expect(discoverPlugins(home)).toEqual({ dir: path.join(home, "plugins"), plugins: [], notes: [] })
  })

  it("lists folders in name order with their manifest status, broken ones with why", async () => {
    const home = await tempDir()
    await writeTree(home, {
      "plugins/zeta/plugin.json": '{"entry":"index.js","enabled":false}',
      "plugins/zeta/index.js": "",
      "plugins/Alpha/plugin.json": '{"entry":"index.mjs"}',
      "plugins/Alpha/index.mjs": "",
      "plugins/beta/plugin.json": '{"entry":"index.js","enabled":"on"}',
      "plugins/beta/index.js": "",
      "plugins/gamma/readme.txt": "no manifest"
    })
    expect(statuses(home)).toEqual(["Alpha: enabled", "beta: broken", "gamma: broken", "zeta: disabled"])
    const discovery = discoverPlugins(home)
    expect(discovery.notes).toEqual([
      `${path.join(home, "plugins", "beta", "plugin.json")}: "enabled" must be true or false (got "on"); plugin 'beta' skipped.`,
      `${path.join(home, "plugins", "gamma", "plugin.json")}: missing; plugin 'gamma' skipped.`
    ])
  })

  it("skips folders with a bad name with a note, and passes over hidden entries and plain files in silence", async () => {
    const home = await tempDir()
    await writeTree(home, {
      "plugins/1st/plugin.json": '{"entry":"index.js"}',
      "plugins/1st/index.js": "",
      "plugins/has space/plugin.json": '{"entry":"index.js"}',
      "plugins/.hidden/plugin.json": '{"entry":"index.js"}',
      "plugins/notes.txt": "",
      [`plugins/${"a".repeat(65)}/plugin.json`]: '{"entry":"index.js"}',
      "plugins/ok_1.2-x/plugin.json": '{"entry":"index.js"}',
      "plugins/ok_1.2-x/index.js": ""
    })
    const discovery = discoverPlugins(home)
    expect(discovery.plugins.map((plugin) => plugin.folder)).toEqual(["ok_1.2-x"])
    const rule = "1–64 characters: a letter, then letters, digits, '_', '.' or '-'"
    expect(discovery.notes).toEqual([
      `${path.join(home, "plugins", "1st")}: the name of a plugin folder must be ${rule}; skipped.`,
      `${path.join(home, "plugins", "a".repeat(65))}: the name of a plugin folder must be ${rule}; skipped.`,
      `${path.join(home, "plugins", "has space")}: the name of a plugin folder must be ${rule}; skipped.`
    ])
  })

  it("follows a symlinked plugin folder", async () => {
    const home = await tempDir()
    const elsewhere = await tempDir()
    await writeTree(elsewhere, { "plugin.json": '{"entry":"index.js"}', "index.js": "" })
    await fs.mkdir(path.join(home, "plugins"))
    await fs.symlink(elsewhere, path.join(home, "plugins", "linked"))
    expect(statuses(home)).toEqual(["linked: enabled"])
  })

  it("reports a plugins path that cannot be read (a symbolic link loop here)", async () => {
    const home = await tempDir()
    await fs.symlink(path.join(home, "plugins"), path.join(home, "plugins"))
    expect(discoverPlugins(home)).toEqual({
      dir: path.join(home, "plugins"),
      plugins: [],
      notes: [`${path.join(home, "plugins")}: cannot be read (ELOOP); no plugins are loaded.`]
    })
  })
})
