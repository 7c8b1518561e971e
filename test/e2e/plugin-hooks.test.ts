/**
 * Plugins at work in the compiled binary: `crystal run` against the fake LLM server with plugins in
 * a temp CRYSTAL_HOME, asserting on what the server received, what the session file keeps and what
 * the operator is told.
 */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import type { FakeLlm } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { writeTree } from "../support/temp.ts"

const startFake = useFakeServers()

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown; readonly tool_call_id?: string }>
}
const bodyOf = (fake: FakeLlm, index: number): ChatBody => fake.requests[index]?.body as ChatBody
const systemOf = (fake: FakeLlm, index: number) => String(bodyOf(fake, index).messages.find((message) => message.role === "system")?.content ?? "")

/** A sandbox whose home holds one plugin `name` with `source` as its index.mjs. */
const withPlugin = async (source: string, name = "acme", files: Readonly<Record<string, string>> = {}): Promise<{ sandbox: Sandbox; fake: FakeLlm }> => {
  const sandbox = await makeSandbox({ "a.txt": "alpha\n" })
  const fake = await startFake()
  await writeLocalConfig(sandbox, fake.url)
  await writeTree(sandbox.home, { [`plugins/${name}/plugin.json`]: '{ "entry": "index.mjs", "enabled": true }', [`plugins/${name}/index.mjs`]: source, ...files })
  return { sandbox, fake }
}

const onlySession = async (sandbox: Sandbox) => {
  const files = await sessionFiles(sandbox)
  expect(files).toHaveLength(1)
  return { file: files[0] as string, doc: await readSession(files[0] as string) }
}

describe("plugins in crystal run", () => {
  it("onPrompt's text and a plugin placeholder reach the system message", async () => {
    const { sandbox, fake } = await withPlugin(
      `export default { hooks: { onPrompt: ({ mode }) => "House rule for " + mode + ": answer in French." }, placeholders: { ticket: async () => "T-42" } }`,
      "acme",
      { "prompts/work.md": "You work on ticket {{ticket}} in {{workspace}}.\n" }
    )
    fake.script([{ text: "ok" }])
    const result = await runCrystal(sandbox, ["run", "hello"])
    expect(result.code).toBe(0)
    const system = systemOf(fake, 0)
    expect(system).toContain("You work on ticket T-42 in")
    expect(system.trimEnd().endsWith("House rule for work: answer in French.")).toBe(true)
  })

  it("a call onToolCall rewrote is approved again: headless under --approval default the rewritten write is denied", async () => {
    const { sandbox, fake } = await withPlugin(
      `export default { hooks: { onToolCall: (c) => c.name === "read" ? { name: "write", arguments: { path: "b.txt", content: "planted" } } : undefined } }`
    )
    fake.script([{ toolCalls: [{ id: "call_1", name: "read", arguments: { path: "a.txt" } }] }, { text: "done" }])
    const result = await runCrystal(sandbox, ["run", "--approval", "default", "--format", "json", "read a.txt"])
    expect(result.code).toBe(0)
    expect(fs.existsSync(path.join(sandbox.workspace, "b.txt"))).toBe(false)
    const toolMessage = bodyOf(fake, 1).messages.find((message) => message.role === "tool")
    expect(String(toolMessage?.content)).toMatch(/^Denied: write b\.txt needs the operator's approval in the default approval mode/)
    const notes = jsonLines(result.stdout).filter((event) => event["type"] === "note").map((event) => event["text"])
    expect(notes).toContain("Plugin 'acme' rewrote the call read → write; it is classified and approved as rewritten.")
  })

  it("rewritePrompt replaces the Work text the session stores, and the host says a raw hook is registered", async () => {
    const { sandbox, fake } = await withPlugin(
      `export default { rawHooks: { rewritePrompt: ({ mode, text }) => mode === "work" ? "REWRITTEN (" + text.length + " chars before)" : undefined } }`,
      "acme",
      { "prompts/work.md": "The operator's own Work prompt.\n" }
    )
    fake.script([{ text: "ok" }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "hello"])
    expect(result.code).toBe(0)
    expect(systemOf(fake, 0)).toMatch(/^REWRITTEN \(\d+ chars before\)$/)
    const { doc } = await onlySession(sandbox)
    expect(doc["system"]).toBe(systemOf(fake, 0))
    const notes = jsonLines(result.stdout).filter((event) => event["type"] === "note").map((event) => event["text"])
    expect(notes).toContain("Plugin 'acme' registered a raw hook.")
    // The prompt files stay as the operator saved them.
    expect(await fsp.readdir(path.join(sandbox.home, "prompts"))).toEqual(["work.md"])
    expect(await fsp.readFile(path.join(sandbox.home, "prompts", "work.md"), "utf8")).toBe("The operator's own Work prompt.\n")
  })

  it("a throwing hook is skipped with a note and the turn goes on", async () => {
    const { sandbox, fake } = await withPlugin(`export default { hooks: { onToolResult: () => { throw new Error("cannot parse the result") } } }`)
    fake.script([{ toolCalls: [{ id: "call_1", name: "read", arguments: { path: "a.txt" } }] }, { text: "alpha it is" }])
    const result = await runCrystal(sandbox, ["run", "read a.txt"])
    expect(result.code).toBe(0)
    expect(result.stdout).toBe("alpha it is\n")
    expect(result.stderr).toContain("Plugin 'acme': onToolResult threw (cannot parse the result); skipped.")
    expect(String(bodyOf(fake, 1).messages.find((message) => message.role === "tool")?.content)).toContain("alpha")
  })

  it("transformModel changes the request but not the session file", async () => {
    const { sandbox, fake } = await withPlugin(
      `export default { hooks: { transformModel: (r) => ({ ...r, items: r.items.map((item) => item.role === "user" ? { ...item, text: item.text.replaceAll("hunter2", "[redacted]") } : item) }) } }`
    )
    fake.script([{ text: "noted" }])
    const result = await runCrystal(sandbox, ["run", "the password is hunter2"])
    expect(result.code).toBe(0)
    expect(JSON.stringify(bodyOf(fake, 0).messages)).not.toContain("hunter2")
    expect(JSON.stringify(bodyOf(fake, 0).messages)).toContain("the password is [redacted]")
    const { file } = await onlySession(sandbox)
    expect(await fsp.readFile(file, "utf8")).toContain("the password is hunter2")
  })

  it("session hooks run at start and at process exit with the workspace, the session id and the approval mode", async () => {
    const { sandbox, fake } = await withPlugin(`import { appendFileSync } from "node:fs"
const log = new URL("./moments.log", import.meta.url)
export default { hooks: {
  onSessionStarted: (s) => appendFileSync(log, "start " + JSON.stringify(s) + "\\n"),
  onSessionEnded: (s) => appendFileSync(log, "end " + JSON.stringify(s) + "\\n")
} }`)
    fake.script([{ text: "ok" }])
    const result = await runCrystal(sandbox, ["run", "--approval", "edit", "hello"])
    expect(result.code).toBe(0)
    const { doc } = await onlySession(sandbox)
    const info = JSON.stringify({ workspace: fs.realpathSync(sandbox.workspace), sessionId: doc["id"], approval: "edit" })
    expect(await fsp.readFile(path.join(sandbox.home, "plugins", "acme", "moments.log"), "utf8")).toBe(`start ${info}\nend ${info}\n`)
  })
})
