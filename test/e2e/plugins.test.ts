/**
 * `crystal plugins list|show|enable|disable` through the compiled binary on a temp CRYSTAL_HOME
 * with .js, .mjs and .ts plugins: `show` proves the binary imported each (what it lists is computed
 * by the module's own code, and the module leaves a marker file when it is evaluated), `list`
 * imports nothing, enable/disable rewrite only the enabled value. And the start-up check: neither
 * `--version` nor a `crystal run` turn imports the modules of disabled plugins.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { writeTree } from "../support/temp.ts"

const startFake = useFakeServers()

/** Leaves `imported` beside the module when the runtime evaluates it. */
const marker = `import { writeFileSync } from "node:fs"\nwriteFileSync(new URL("./imported", import.meta.url), "yes")\n`

const jsPlugin = `${marker}export default {
  name: ["Alpha", "JS"].join("-"),
  hooks: { onPrompt: () => "alpha", onToolCall: () => undefined },
  placeholders: { alpha_branch: () => "main" }
}
`

const mjsPlugin = `${marker}export default {
  hooks: { onApproval: () => ({ ask: true }), onCompaction: () => undefined, onPromt: () => "typo" },
  rawHooks: { rewritePrompt: (p) => p.text }
}
`

// Type annotations, an interface and a type-only import of a file that is not there (docs/plugins.md
// says such imports are dropped): only a runtime that compiles TypeScript can import this.
const tsPlugin = `${marker}import type { Plugin } from "./crystal-plugin-api.ts"
interface Hooks { onTurnStarted(t: { text: string }): void }
const hooks: Hooks = { onTurnStarted: (_t: { text: string }): void => undefined }
const name: string = "Gamma" + String(1 + 1)
export default { name, hooks } satisfies Plugin
`

const betaManifest = '{\n    "entry": "lib/plugin.mjs",\n    "enabled": true,\n    "owner": { "team": "platform" }\n}\n'

const homeWithPlugins = async (): Promise<Sandbox> => {
  const sandbox = await makeSandbox()
  await writeTree(sandbox.home, {
    "plugins/alpha/plugin.json": '{ "entry": "index.js" }',
    "plugins/alpha/index.js": jsPlugin,
    "plugins/beta/plugin.json": betaManifest,
    "plugins/beta/lib/plugin.mjs": mjsPlugin,
    "plugins/gamma/plugin.json": '{"entry":"src/main.ts","enabled":true}',
    "plugins/gamma/src/main.ts": tsPlugin,
    "plugins/off/plugin.json": '{"entry":"index.mjs","enabled":false}',
    "plugins/off/index.mjs": `${marker}export default {}`,
    "plugins/broken/plugin.json": '{"entry":"index.mjs","enabled":"yes"}',
    "plugins/broken/index.mjs": `${marker}export default {}`,
    "plugins/9lives/plugin.json": '{"entry":"index.mjs"}'
  })
  return sandbox
}

const imported = (sandbox: Sandbox, file: string) => fs.existsSync(path.join(sandbox.home, "plugins", file))

describe("crystal plugins", () => {
  it("lists every folder with its manifest status and imports nothing", async () => {
    const sandbox = await homeWithPlugins()
    const table = await runCrystal(sandbox, ["plugins", "list"])
    expect(table.code, table.stderr).toBe(0)
    const brokenProblem = `${path.join(sandbox.home, "plugins", "broken", "plugin.json")}: "enabled" must be true or false (got "yes")`
    expect(table.stdout.split("\n").map((line) => line.replace(/ +/g, " "))).toEqual([
      "NAME ENABLED ENTRY STATUS",
      "alpha yes index.js ok",
      "beta yes lib/plugin.mjs ok",
      `broken - - broken: ${brokenProblem}`,
      "gamma yes src/main.ts ok",
      "off no index.mjs ok",
      ""
    ])
    expect(table.stderr).toBe(
      `crystal: ${path.join(sandbox.home, "plugins", "9lives")}: the name of a plugin folder must be 1–64 characters: a letter, then letters, digits, '_', '.' or '-'; skipped.\n`
    )
    const text = await runCrystal(sandbox, ["plugins", "list", "--format", "text"])
    expect(text.stdout.split("\n")[0]).toBe("alpha\tyes\tindex.js\tok")
    for (const folder of ["alpha/imported", "beta/lib/imported", "gamma/src/imported", "off/imported", "broken/imported"]) {
      expect(imported(sandbox, folder), folder).toBe(false)
    }
  })

  it("shows what the binary imported from a .js, a .mjs and a .ts entry", async () => {
    const sandbox = await homeWithPlugins()
    const alpha = await runCrystal(sandbox, ["plugins", "show", "alpha"])
    expect(alpha.code, alpha.stderr).toBe(0)
    expect(alpha.stdout).toBe(
      [
        "Plugin 'Alpha-JS'",
        "  Folder        alpha",
        `  Entry         ${path.join(sandbox.home, "plugins", "alpha", "index.js")}`,
        "  Hooks         onPrompt, onToolCall",
        "  Raw hooks     none",
        "  Placeholders  {{alpha_branch}}",
        ""
      ].join("\n")
    )
    const betaEntry = path.join(sandbox.home, "plugins", "beta", "lib", "plugin.mjs")
    const beta = await runCrystal(sandbox, ["plugins", "show", "beta"])
    expect(beta.code, beta.stderr).toBe(0)
    expect(beta.stdout).toContain("  Hooks         onApproval, onCompaction\n")
    expect(beta.stdout).toContain("  Raw hooks     rewritePrompt (privileged: not held to the hook rules)\n")
    expect(beta.stdout).toContain("  Note: Plugin 'beta' registered a raw hook.\n")
    expect(beta.stdout).toContain(`  Note: ${betaEntry}: "hooks.onPromt" is not a known hook; ignored. Known: onSessionStarted,`)
    const gamma = await runCrystal(sandbox, ["plugins", "show", "gamma", "--format", "text"])
    expect(gamma.code, gamma.stderr).toBe(0)
    expect(gamma.stdout).toBe(
      [
        "name\tGamma2",
        "folder\tgamma",
        `entry\t${path.join(sandbox.home, "plugins", "gamma", "src", "main.ts")}`,
        "hooks\tonTurnStarted",
        "raw-hooks\tnone",
        "placeholders\tnone",
        "enabled\tyes",
        ""
      ].join("\n")
    )
    for (const folder of ["alpha/imported", "beta/lib/imported", "gamma/src/imported"]) expect(imported(sandbox, folder), folder).toBe(true)
    // Disabled plugins are never imported, not even by show; a broken one is refused in one line.
    const off = await runCrystal(sandbox, ["plugins", "show", "off"])
    expect(off.code).toBe(0)
    expect(off.stdout).toMatch(/^Loaded +no: disabled plugins are never imported \(crystal plugins enable off\)$/m)
    expect(imported(sandbox, "off/imported")).toBe(false)
    const broken = await runCrystal(sandbox, ["plugins", "show", "broken"])
    expect([broken.code, broken.stdout, broken.stderr]).toEqual([
      1,
      "",
      `crystal: the plugin 'broken' cannot be used: ${path.join(sandbox.home, "plugins", "broken", "plugin.json")}: "enabled" must be true or false (got "yes")\n`
    ])
    const unknown = await runCrystal(sandbox, ["plugins", "show", "nope"])
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      `crystal: no plugin 'nope' in ${path.join(sandbox.home, "plugins")} (available: alpha, beta, broken, gamma, off)\n`
    ])
  })

  it("reports a plugin whose module throws in one line, without a stack", async () => {
    const sandbox = await makeSandbox()
    await writeTree(sandbox.home, {
      "plugins/boom/plugin.json": '{"entry":"index.ts"}',
      "plugins/boom/index.ts": 'const fail = (why: string): never => { throw new Error(why + "\\nsecond line") }\nfail("no database")\nexport default {}\n'
    })
    const result = await runCrystal(sandbox, ["plugins", "show", "boom"])
    expect([result.code, result.stdout, result.stderr]).toEqual([
      1,
      "",
      `crystal: ${path.join(sandbox.home, "plugins", "boom", "index.ts")}: failed to load (no database); plugin 'boom' skipped.\n`
    ])
  })

  it("enable and disable change only the enabled value; a broken manifest is refused and left alone", async () => {
    const sandbox = await homeWithPlugins()
    const betaFile = path.join(sandbox.home, "plugins", "beta", "plugin.json")
    const disabled = await runCrystal(sandbox, ["plugins", "disable", "beta"])
    expect([disabled.code, disabled.stdout, disabled.stderr]).toEqual([
      0,
      `Disabled plugin 'beta' (${betaFile}); sessions started from now on do not load it.\n`,
      ""
    ])
    expect(await fsp.readFile(betaFile, "utf8")).toBe(betaManifest.replace('"enabled": true', '"enabled": false'))
    const again = await runCrystal(sandbox, ["plugins", "disable", "beta"])
    expect(again.stdout).toBe("Plugin 'beta' is already disabled; nothing changed.\n")
    const enabled = await runCrystal(sandbox, ["plugins", "enable", "beta"])
    expect(enabled.code).toBe(0)
    expect(await fsp.readFile(betaFile, "utf8")).toBe(betaManifest)

    // An omitted "enabled" means on: disabling adds it, formatted like the file's other fields.
    const alphaFile = path.join(sandbox.home, "plugins", "alpha", "plugin.json")
    await runCrystal(sandbox, ["plugins", "disable", "alpha"])
    expect(await fsp.readFile(alphaFile, "utf8")).toBe('{ "entry": "index.js", "enabled": false }')

    const brokenFile = path.join(sandbox.home, "plugins", "broken", "plugin.json")
    const refused = await runCrystal(sandbox, ["plugins", "enable", "broken"])
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([
      1,
      "",
      `crystal: cannot enable plugin 'broken': ${brokenFile}: "enabled" must be true or false (got "yes"); nothing was written.\n`
    ])
    expect(await fsp.readFile(brokenFile, "utf8")).toBe('{"entry":"index.mjs","enabled":"yes"}')
    // None of this imported a module.
    expect(imported(sandbox, "beta/lib/imported") || imported(sandbox, "alpha/imported")).toBe(false)
  })

  it("shows the example plugin of docs/plugins.md as loaded by the binary", async () => {
    const sandbox = await makeSandbox()
    fs.cpSync(path.resolve(import.meta.dirname, "../../docs/examples/plugins/house-rules"), path.join(sandbox.home, "plugins", "house-rules"), {
      recursive: true
    })
    const result = await runCrystal(sandbox, ["plugins", "show", "house-rules"])
    expect([result.code, result.stderr]).toEqual([0, ""])
    expect(result.stdout).toContain("  Hooks         onSessionStarted, onPrompt, onToolCall\n  Raw hooks     none\n  Placeholders  {{git_branch}}\n")
  })

  it("--home names another home, and must be a directory", async () => {
    const sandbox = await homeWithPlugins()
    const other = await makeSandbox()
    const listed = await runCrystal(other, ["plugins", "list", "--format", "text", "--home", sandbox.home])
    expect(listed.stdout.split("\n").map((line) => line.split("\t")[0])).toEqual(["alpha", "beta", "broken", "gamma", "off", ""])
    const missing = await runCrystal(other, ["plugins", "list", "--home", path.join(other.home, "nope")])
    expect([missing.code, missing.stderr]).toEqual([2, `crystal: --home ${path.join(other.home, "nope")}: not a directory\n`])
  })
})

const hasStrace = spawnSync("strace", ["-V"]).status === 0

describe("start-up with plugins present", () => {
  it("--version imports no plugin module", async () => {
    const sandbox = await homeWithPlugins()
    const result = await runCrystal(sandbox, ["--version"])
    expect(result.code).toBe(0)
    for (const folder of ["alpha/imported", "beta/lib/imported", "gamma/src/imported", "off/imported"]) expect(imported(sandbox, folder)).toBe(false)
  })

  const traced = async (sandbox: Sandbox, args: ReadonlyArray<string>): Promise<ReadonlyArray<string>> => {
    const trace = path.join(sandbox.home, "..", `trace-${args.join("-")}.txt`)
    const syscalls = "trace=open,openat,stat,lstat,statx,newfstatat,readlink,getdents64"
    const run = spawnSync("strace", ["-f", "-qq", "-e", syscalls, "-o", trace, crystalBinary, ...args], { env: sandbox.env, encoding: "utf8" })
    expect(run.status, run.stderr).toBe(0)
    const plugins = path.join(sandbox.home, "plugins")
    return (await fsp.readFile(trace, "utf8")).split("\n").filter((line) => line.includes(plugins))
  }

  it.skipIf(!hasStrace)("--version touches nothing under ~/.crystal/plugins; plugins list reads manifests but no module (strace)", async () => {
    const sandbox = await homeWithPlugins()
    expect(await traced(sandbox, ["--version"])).toEqual([])
    // The control: the same trace does see what `plugins list` reads there.
    const listing = await traced(sandbox, ["plugins", "list"])
    expect(listing.some((line) => line.includes(path.join("plugins", "alpha", "plugin.json")))).toBe(true)
    // Resolving an entry's real path opens it with O_PATH (no read possible); reading it would not.
    const moduleReads = (lines: ReadonlyArray<string>) => lines.filter((line) => /\.(m?js|ts)"/.test(line) && /open/.test(line) && !line.includes("O_PATH"))
    expect(moduleReads(listing)).toEqual([])
    // And the filter does catch a module being read: `show` imports alpha's.
    expect(moduleReads(await traced(sandbox, ["plugins", "show", "alpha"])).some((line) => line.includes(path.join("alpha", "index.js")))).toBe(true)
  })

  it.skipIf(!hasStrace)("an absent or empty plugins folder costs one readdir (strace)", async () => {
    const sandbox = await makeSandbox()
    const oneOpen = (lines: ReadonlyArray<string>) => {
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(new RegExp(`openat\\(AT_FDCWD, "${path.join(sandbox.home, "plugins")}", [A-Z_|]*O_DIRECTORY`))
    }
    oneOpen(await traced(sandbox, ["plugins", "list"]))
    await fsp.mkdir(path.join(sandbox.home, "plugins"))
    oneOpen(await traced(sandbox, ["plugins", "list"]))
  })

  it("a crystal run turn does not import the modules of disabled plugins", async () => {
    const sandbox = await makeSandbox()
    await writeTree(sandbox.home, {
      "plugins/off-js/plugin.json": '{"entry":"index.js","enabled":false}',
      "plugins/off-js/index.js": `${marker}export default {}`,
      "plugins/off-ts/plugin.json": '{"entry":"index.ts","enabled":false}',
      "plugins/off-ts/index.ts": `${marker}export default {}`
    })
    const fake = await startFake()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "Hello." }])
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain("Hello.")
    expect(imported(sandbox, "off-js/imported") || imported(sandbox, "off-ts/imported")).toBe(false)
  })
})
