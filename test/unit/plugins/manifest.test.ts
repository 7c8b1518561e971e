import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { parsePluginManifestText, readPluginManifest, writePluginEnabled, type PluginManifest } from "../../../src/plugins/manifest.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const problemOf = (text: string): string => {
  const read = parsePluginManifestText(text)
  return read._tag === "Problem" ? read.problem : `entry ${read.entry}, enabled ${read.enabled}`
}

describe("plugin.json fields", () => {
  it.each([
    ['{"entry":"index.js","enabled":true}', "entry index.js, enabled true"],
    ['{"entry":"index.mjs","enabled":false}', "entry index.mjs, enabled false"],
    ['{"entry":"src/main.ts"}', "entry src/main.ts, enabled true"],
    ['{"entry":"index.js","extra":{"kept":[1]}}', "entry index.js, enabled true"],
    ['{"enabled":true}', '"entry" is missing (expected a relative path to a .js, .mjs or .ts file inside the plugin\'s folder)'],
    ['{"entry":"index.py"}', '"entry" must be a relative path to a .js, .mjs or .ts file inside the plugin\'s folder (got "index.py")'],
    ['{"entry":"/abs/index.js"}', '"entry" must be a relative path to a .js, .mjs or .ts file inside the plugin\'s folder (got "/abs/index.js")'],
    ['{"entry":7}', '"entry" must be a relative path to a .js, .mjs or .ts file inside the plugin\'s folder (got 7)'],
    ['{"entry":""}', '"entry" must be a relative path to a .js, .mjs or .ts file inside the plugin\'s folder (got "")'],
    ['{"entry":"index.js","enabled":"yes"}', '"enabled" must be true or false (got "yes")'],
    ['{"entry":"index.js","enabled":null}', '"enabled" must be true or false (got null)'],
    ["[]", "expected a JSON object at the top level"],
    ['{"entry": "index.js",}', 'not valid JSON at line 1, column 22: unexpected "}"'],
    ["", "not valid JSON at line 1, column 1: unexpected end of file"]
  ])("%s → %s", (text, expected) => {
    expect(problemOf(text)).toBe(expected)
  })
})

describe("where the entry leads", () => {
  const problem = (dir: string): string => {
    const read = readPluginManifest(dir)
    return read._tag === "Problem" ? `${path.basename(read.file)}: ${read.problem}` : `ok ${read.manifest.entryPath}`
  }

  it("accepts an entry inside the folder and gives its real path", async () => {
    const root = await tempDir()
    await writeTree(root, { "p/plugin.json": '{"entry":"./lib/../index.mjs"}', "p/index.mjs": "export default {}" })
    expect(problem(path.join(root, "p"))).toBe(`ok ${path.join(root, "p", "index.mjs")}`)
  })

  it("refuses an entry that climbs out with ../", async () => {
    const root = await tempDir()
    await writeTree(root, { "p/plugin.json": '{"entry":"../outside.js"}', "outside.js": "export default {}" })
    expect(problem(path.join(root, "p"))).toBe('plugin.json: "entry" must stay inside the plugin\'s folder (got "../outside.js")')
  })

  it("refuses an entry that is a symbolic link to a file outside the folder", async () => {
    const root = await tempDir()
    await writeTree(root, { "p/plugin.json": '{"entry":"index.js"}', "outside.js": "export default {}" })
    await fs.symlink(path.join(root, "outside.js"), path.join(root, "p", "index.js"))
    expect(problem(path.join(root, "p"))).toBe(
      `plugin.json: "entry" leads outside the plugin's folder through a symbolic link ("index.js" is ${path.join(root, "outside.js")})`
    )
  })

  it("refuses an entry under a symlinked directory that leads outside", async () => {
    const root = await tempDir()
    await writeTree(root, { "p/plugin.json": '{"entry":"lib/index.js"}', "elsewhere/index.js": "export default {}" })
    await fs.symlink(path.join(root, "elsewhere"), path.join(root, "p", "lib"))
    expect(problem(path.join(root, "p"))).toMatch(/leads outside the plugin's folder through a symbolic link/)
  })

  it("accepts a plugin folder that is itself a symbolic link (the entry is inside its real folder)", async () => {
    const root = await tempDir()
    await writeTree(root, { "real/plugin.json": '{"entry":"index.js"}', "real/index.js": "export default {}" })
    await fs.symlink(path.join(root, "real"), path.join(root, "linked"))
    expect(problem(path.join(root, "linked"))).toBe(`ok ${path.join(root, "real", "index.js")}`)
  })

  it("refuses a symlinked entry whose target has another extension", async () => {
    const root = await tempDir()
    await writeTree(root, { "p/plugin.json": '{"entry":"index.js"}', "p/code.txt": "export default {}" })
    await fs.symlink(path.join(root, "p", "code.txt"), path.join(root, "p", "index.js"))
    expect(problem(path.join(root, "p"))).toMatch(/^plugin\.json: "entry" must be a relative path .* \("index\.js" is .*code\.txt\)$/)
  })

  it("names a missing manifest, a missing entry and an entry that is a directory", async () => {
    const root = await tempDir()
    await writeTree(root, { "none/x.js": "", "gone/plugin.json": '{"entry":"index.js"}', "dir/plugin.json": '{"entry":"sub.js"}' })
    await fs.mkdir(path.join(root, "dir", "sub.js"))
    expect(problem(path.join(root, "none"))).toBe("plugin.json: missing")
    expect(problem(path.join(root, "gone"))).toBe(`plugin.json: "entry" names a file that does not exist (${path.join(root, "gone", "index.js")})`)
    expect(problem(path.join(root, "dir"))).toBe(`plugin.json: "entry" must name a file (${path.join(root, "dir", "sub.js")} is not one)`)
  })
})

describe("writing enabled", () => {
  const manifestIn = async (text: string): Promise<PluginManifest> => {
    const root = await tempDir()
    await writeTree(root, { "p/plugin.json": text, "p/index.js": "export default {}" })
    const read = readPluginManifest(path.join(root, "p"))
    if (read._tag !== "Manifest") throw new Error(read.problem)
    return read.manifest
  }

  it("changes only the enabled value, every other byte kept", async () => {
    const text = '{\n    "entry" :  "index.js",\n    "enabled": true,\n    "x-note": [1, 2,   3]\n}\n'
    const manifest = await manifestIn(text)
    expect(await Effect.runPromise(writePluginEnabled(manifest, false))).toBe(true)
    expect(await fs.readFile(manifest.file, "utf8")).toBe(text.replace('"enabled": true', '"enabled": false'))
  })

  it("adds enabled last, formatted like the other fields, when it was omitted", async () => {
    const manifest = await manifestIn('{\n\t"entry": "index.js",\n\t"author": "me"\n}')
    await Effect.runPromise(writePluginEnabled(manifest, false))
    expect(await fs.readFile(manifest.file, "utf8")).toBe('{\n\t"entry": "index.js",\n\t"author": "me",\n\t"enabled": false\n}')
  })

  it("leaves the file untouched when it already says so (omitted means enabled)", async () => {
    const text = '{"entry":"index.js"}'
    const manifest = await manifestIn(text)
    const before = await fs.stat(manifest.file)
    expect(await Effect.runPromise(writePluginEnabled(manifest, true))).toBe(false)
    expect(await fs.readFile(manifest.file, "utf8")).toBe(text)
    expect((await fs.stat(manifest.file)).mtimeMs).toBe(before.mtimeMs)
  })

  it("refuses when the file changed since it was read, and writes nothing", async () => {
    const manifest = await manifestIn('{"entry":"index.js","enabled":true}')
    await fs.writeFile(manifest.file, '{"entry":"index.js","enabled":true }')
    const error = await Effect.runPromise(Effect.flip(writePluginEnabled(manifest, false)))
    expect(error.message).toBe(`${manifest.file}: cannot save (it changed on disk since it was read; nothing was written, try again)`)
    expect(await fs.readFile(manifest.file, "utf8")).toBe('{"entry":"index.js","enabled":true }')
  })

  it("keeps the file's permissions", async () => {
    const manifest = await manifestIn('{"entry":"index.js","enabled":false}')
    await fs.chmod(manifest.file, 0o640)
    await Effect.runPromise(writePluginEnabled(manifest, true))
    expect((await fs.stat(manifest.file)).mode & 0o777).toBe(0o640)
  })
})
