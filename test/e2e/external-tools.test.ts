/**
 * External tool sets through the compiled binary (SPEC X1–X4, B2): an exec tool (python3) and
 * module tools (.mjs and .ts, imported by the binary itself) called by the model from `crystal run`
 * against the fake server; a workspace's sets offered only once trusted.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { makePng } from "../support/images.ts"

const fakeServer = useFakeServers()

const toolResults = (stdout: string) =>
  jsonLines(stdout).filter((event) => event["type"] === "tool_result").map((event) => ({ name: event["name"], ok: event["ok"], output: String(event["output"]) }))

const notes = (stdout: string) => jsonLines(stdout).filter((event) => event["type"] === "note").map((event) => String(event["text"]))

const countPy = `import json, os, sys
args = json.load(sys.stdin)
flags = sys.argv[1:]
path = flags[flags.index("--path") + 1]
with open(path) as f:
    words = len(f.read().split())
env = {k: os.environ.get(k, "") for k in ["CRYSTAL_WORKSPACE", "CRYSTAL_SESSION", "CRYSTAL_APPROVAL", "CRYSTAL_TOOL_DATA", "CRYSTAL_PROJECT_DATA"]}
print(json.dumps({"words": words, "stdin": args, "flags": flags, "cwd": os.getcwd(), "env": env, "dataExists": os.path.isdir(env["CRYSTAL_TOOL_DATA"])}))
`

const wordCountSet = (approval?: string) =>
  JSON.stringify(
    {
      runner: "exec",
      tools: [
        {
          name: "word_count",
          description: "Count the words of a file in the workspace.",
          parameters: { type: "object", properties: { path: { type: "string" }, verbose: { type: "boolean" } }, required: ["path"] },
          command: ["python3", "./count.py"],
          argv: { path: "--path", verbose: "--verbose" },
          ...(approval === undefined ? {} : { approval })
        }
      ]
    },
    null,
    2
  )

const moduleMjs = `export const tools = [{
  definition: { name: "shout", description: "Upper-cases a text.", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  run: async (args, ctx) => ({ text: args.text.toUpperCase() + " in " + ctx.workspace + " (" + ctx.approval + ")" })
}]
`

const moduleTs = `interface Args { readonly a: number; readonly b: number }
export const tools = [{
  definition: { name: "add_numbers", description: "Adds two numbers.", parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
  run: (args: Args): string => \`sum=\${args.a + args.b}\`
}]
`

const writeSet = async (root: string, name: string, files: Record<string, string>) => {
  const dir = path.join(root, name)
  await fs.mkdir(dir, { recursive: true })
  for (const [file, text] of Object.entries(files)) await fs.writeFile(path.join(dir, file), text)
  return dir
}

const homeTools = (sandbox: Sandbox) => path.join(sandbox.home, "tools")
const projectTools = (sandbox: Sandbox) => path.join(sandbox.workspace, ".crystal", "tools")

describe("external tools from crystal run", () => {
  it("runs an exec tool and two module tools (.mjs, .ts) from the home sets, offered after every built-in tool", async () => {
    const sandbox = await makeSandbox({ "notes.txt": "one two three four\n" })
    await writeSet(homeTools(sandbox), "words", { "tools.json": wordCountSet(), "count.py": countPy })
    await writeSet(homeTools(sandbox), "shout", { "tools.json": JSON.stringify({ runner: "module", entry: "tools.mjs" }), "tools.mjs": moduleMjs })
    await writeSet(homeTools(sandbox), "maths", { "tools.json": JSON.stringify({ runner: "module", entry: "tools.ts", catalogs: ["work"] }), "tools.ts": moduleTs })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([
      { toolCalls: [{ name: "word_count", arguments: { path: "notes.txt", verbose: true } }] },
      { toolCalls: [{ name: "shout", arguments: { text: "hello" } }] },
      { toolCalls: [{ name: "add_numbers", arguments: { a: 2, b: 40 } }] },
      { toolCalls: [{ name: "word_count", arguments: { path: 7 } }] },
      { text: "done" }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "count"])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const results = toolResults(result.stdout)
    expect(results.map((entry) => [entry.name, entry.ok])).toEqual([["word_count", true], ["shout", true], ["add_numbers", true], ["word_count", false]])
    const counted = JSON.parse(results[0]?.output ?? "{}") as Record<string, unknown> & { env: Record<string, string> }
    expect(counted["words"]).toBe(4)
    expect(counted["stdin"]).toEqual({ path: "notes.txt", verbose: true })
    expect(counted["flags"]).toEqual(["--path", "notes.txt", "--verbose"])
    const workspace = await fs.realpath(sandbox.workspace)
    expect(counted["cwd"]).toBe(workspace)
    expect(counted.env["CRYSTAL_WORKSPACE"]).toBe(workspace)
    expect(counted.env["CRYSTAL_APPROVAL"]).toBe("full")
    expect(counted.env["CRYSTAL_SESSION"]).toMatch(/\S/)
    expect(counted.env["CRYSTAL_TOOL_DATA"]).toBe(path.join(sandbox.home, "tool-data", "words"))
    expect(counted.env["CRYSTAL_PROJECT_DATA"]).toBe(path.join(workspace, ".crystal", "tool-data", "words"))
    expect(counted["dataExists"]).toBe(true)
    expect(results[1]?.output).toBe(`HELLO in ${workspace} (full)`)
    expect(results[2]?.output).toBe("sum=42")
    expect(results[3]?.output).toBe("word_count: invalid arguments: path: expected a string, got an integer")
    // The catalog the model was offered: built-in tools first, external ones after them.
    const body = fake.requests[0]?.body as { tools: Array<{ function: { name: string } }> }
    const offered = body.tools.map((tool) => tool.function.name)
    expect(offered.slice(-3).sort()).toEqual(["add_numbers", "shout", "word_count"])
    expect(offered.indexOf("bash_stop")).toBeLessThan(offered.indexOf("word_count"))
  })

  it("does not offer a workspace's tool sets until they are trusted; --trust-project-tools offers them; a trust file in the workspace counts for nothing", async () => {
    const sandbox = await makeSandbox({ "notes.txt": "a b\n" })
    await writeSet(projectTools(sandbox), "words", { "tools.json": wordCountSet(), "count.py": countPy })
    const workspace = await fs.realpath(sandbox.workspace)
    // What a hostile repository could ship: a trust file of its own, claiming the set.
    await fs.writeFile(path.join(sandbox.workspace, ".crystal", "trust.json"), JSON.stringify({ trusted: [{ kind: "tools", workspace, name: "words", hash: "x" }] }))
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ toolCalls: [{ name: "word_count", arguments: { path: "notes.txt" } }] }, { text: "no" }])
    const refused = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "count"])
    expect(refused.code).toBe(0)
    expect(notes(refused.stdout).some((note) => note.includes("not offered until you trust them: words"))).toBe(true)
    expect(toolResults(refused.stdout)[0]?.output).toMatch(/^there is no tool named 'word_count'/)
    await expect(fs.access(path.join(sandbox.home, "trust.json"))).rejects.toThrow()

    fake.script([{ toolCalls: [{ name: "word_count", arguments: { path: "notes.txt" } }] }, { text: "yes" }])
    const trusted = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "--trust-project-tools", "count"])
    expect(trusted.code).toBe(0)
    const results = toolResults(trusted.stdout)
    expect(results[0]?.ok).toBe(true)
    expect(JSON.parse(results[0]?.output ?? "{}")).toMatchObject({ words: 2 })
    // The flag trusts for this run only: nothing is stored.
    await expect(fs.access(path.join(sandbox.home, "trust.json"))).rejects.toThrow()

    // config.json "trustProjectTools": true does the same for every run.
    await writeLocalConfig(sandbox, fake.url, { trustProjectTools: true })
    fake.script([{ toolCalls: [{ name: "word_count", arguments: { path: "notes.txt" } }] }, { text: "yes" }])
    const configured = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "count"])
    expect(toolResults(configured.stdout)[0]?.ok).toBe(true)

    // "externalTools": false skips discovery altogether.
    await writeLocalConfig(sandbox, fake.url, { trustProjectTools: true, externalTools: false })
    fake.script([{ toolCalls: [{ name: "word_count", arguments: { path: "notes.txt" } }] }, { text: "off" }])
    const off = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "count"])
    expect(toolResults(off.stdout)[0]?.output).toMatch(/^there is no tool named 'word_count'/)
  })

  it('asks for an "approval": "always" home tool even in full mode (headless: nobody to ask, refused); /tools home host would not', async () => {
    const sandbox = await makeSandbox({ "notes.txt": "a b\n" })
    await writeSet(homeTools(sandbox), "words", { "tools.json": wordCountSet("always"), "count.py": countPy })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ toolCalls: [{ name: "word_count", arguments: { path: "notes.txt" } }] }, { text: "ok" }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "count"])
    expect(result.code).toBe(0)
    const results = toolResults(result.stdout)
    expect(results[0]?.ok).toBe(false)
    expect(results[0]?.output).toMatch(/word_count/)
    expect(results[0]?.output).not.toMatch(/"words"/)
  })

  it('"output": "content" attaches base64 and workspace-path images for a model that takes images; a text-only model gets a clear error', async () => {
    const sandbox = await makeSandbox()
    await fs.writeFile(path.join(sandbox.workspace, "shot.png"), makePng(8, 6))
    const content = { text: "two images", images: [{ mediaType: "image/png", data: makePng(4, 4).toString("base64") }, { path: "shot.png" }] }
    await writeSet(homeTools(sandbox), "shots", {
      "tools.json": JSON.stringify({ tools: [{ name: "screenshot", description: "Takes screenshots.", command: ["cat", "./content.json"], output: "content", stdin: false }] }),
      "content.json": JSON.stringify(content)
    })
    const fake = await fakeServer()
    const models = (imageInput: boolean) => ({
      providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { "test-model": { contextWindow: 32768, imageInput } } } }
    })
    await writeLocalConfig(sandbox, fake.url, models(true))
    fake.script([{ toolCalls: [{ name: "screenshot", arguments: {} }] }, { text: "seen" }])
    const seen = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "look"])
    expect(seen.code).toBe(0)
    const [result] = toolResults(seen.stdout)
    expect(result?.ok).toBe(true)
    expect(result?.output).toMatch(/^two images\n\[Image #1\] screenshot image 1 \(image\/png\)\n\[Image #2\] shot\.png \(image\/png\)$/)
    expect((await fs.readdir(path.join(sandbox.home, "media"))).filter((name) => /^[0-9a-f]{64}$/.test(name)).length).toBe(2)

    await writeLocalConfig(sandbox, fake.url, models(false))
    fake.script([{ toolCalls: [{ name: "screenshot", arguments: {} }] }, { text: "blind" }])
    const blind = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "look"])
    expect(blind.code).toBe(0)
    const [refused] = toolResults(blind.stdout)
    expect(refused?.ok).toBe(false)
    expect(refused?.output).toMatch(/^screenshot returned an image that cannot be attached: .*image/)
  })
})
