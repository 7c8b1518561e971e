/**
 * A provider key the model repeats (issue 30) never reaches a file or the output, through the
 * compiled binary: on two protocols, a reply holding the key whole and split across stream deltas
 * (its reasoning too), a tool call whose arguments hold it, a compaction summary and, in the
 * terminal UI, a title and the todo list that hold it. Every file under the home and the
 * workspace, every export, `sessions show` and every stdout and stderr (text and --format json)
 * are searched for the key and each 12-character piece of it. The call itself runs with the key
 * the model sent (README "Secrets").
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig, type CrystalResult, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm, type RecordedRequest } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"
import { historyFile } from "../../src/tui/history.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const key = `sk-proj-${randomBytes(24).toString("hex")}`

/** The first 12-character piece of the key in `text`, or undefined. */
const leakIn = (text: string): string | undefined => {
  for (let at = 0; at + 12 <= key.length; at++) if (text.includes(key.slice(at, at + 12))) return key.slice(at, at + 12)
  return undefined
}

/** Every file under the home and the workspace that holds a piece of the key, with the piece. */
const leakingFiles = async (sandbox: Sandbox): Promise<Array<string>> => {
  const leaks: Array<string> = []
  for (const root of [sandbox.home, sandbox.workspace]) {
    for (const entry of await fs.readdir(root, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue
      const file = path.join(entry.parentPath, entry.name)
      const found = leakIn(await fs.readFile(file, "latin1"))
      if (found !== undefined) leaks.push(`${file}: ${found}`)
    }
  }
  return leaks
}

const leakingOutputs = (runs: Readonly<Record<string, CrystalResult>>): Array<string> =>
  Object.entries(runs).flatMap(([name, run]) =>
    [`${name} stdout`, `${name} stderr`].flatMap((label, index) => {
      const found = leakIn(index === 0 ? run.stdout : run.stderr)
      return found === undefined ? [] : [`${label}: ${found}`]
    })
  )

/** The reasoning and the answer stream the key in pieces that cut it anywhere; the call's arguments hold it whole. */
const keyedReply = {
  reasoning: ["The operator pasted sk-pr", key.slice(5, 30), `${key.slice(30)} earlier.`],
  text: ["Your key is ", key.slice(0, 7), key.slice(7, 25), `${key.slice(25)}; counting it.`],
  toolCalls: [{ name: "bash", arguments: { command: `printf %s '${key}' | wc -c` } }]
}

const protocols = {
  "openai-chat": (url: string) => ({ protocol: "openai-chat", baseURL: `${url}/v1` }),
  anthropic: (url: string) => ({ protocol: "anthropic", baseURL: url })
} as const

const sandboxFor = async (protocol: keyof typeof protocols) => {
  const sandbox = await makeSandbox()
  const fake: FakeLlm = await startFakeLlm()
  cleanups.push(() => fake.close())
  await writeLocalConfig(sandbox, fake.url, {
    providers: { local: { ...protocols[protocol](fake.url), apiKeyEnv: "LOCAL_KEY", models: { "test-model": { contextWindow: 32768, reasoning: true } } } }
  })
  return { sandbox, fake, env: { LOCAL_KEY: "local-test-key", OPENAI_API_KEY: key } }
}

describe.each(Object.keys(protocols) as Array<keyof typeof protocols>)("a key in the model's own text (%s)", (protocol) => {
  it("reaches no file, export or output, in JSON and in text; the call runs with it", async () => {
    const { sandbox, fake, env } = await sandboxFor(protocol)
    fake.script([
      keyedReply,
      // 30,000 of 32,768 tokens: the next run compacts before its first request.
      { text: `Counted ${key}.`, usage: { inputTokens: 30_000, outputTokens: 100 } },
      { text: `SUMMARY: the operator shared ${key} and asked to count it.` },
      keyedReply,
      { text: ["Again: ", key.slice(0, 20), `${key.slice(20)}.`] }
    ])
    const json = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "count my key"], { env })
    expect(json.stderr).toBe("")
    expect(json.code).toBe(0)
    const events = jsonLines(json.stdout)
    expect(events.filter((event) => event["type"] === "text").map((event) => event["text"])).toEqual(["Your key is [redacted]; counting it.", "Counted [redacted]."])
    expect(events.find((event) => event["type"] === "reasoning")?.["text"]).toBe("The operator pasted [redacted] earlier.")
    expect(events.find((event) => event["type"] === "tool_call")?.["arguments"]).toEqual({ command: "printf %s '[redacted]' | wc -c" })
    // The call ran with the key itself: its length, not that of "[redacted]".
    expect(events.find((event) => event["type"] === "tool_result")?.["output"]).toBe(`exit 0\n${key.length}`)

    const text = await runCrystal(sandbox, ["run", "--continue", "--approval", "full", "once more"], { env })
    expect(text.code).toBe(0)
    expect(text.stdout).toBe("Your key is [redacted]; counting it.\nAgain: [redacted].\n")
    expect(text.stderr).toContain("thinking: The operator pasted [redacted] earlier.")
    expect(text.stderr).toContain("printf %s '[redacted]' | wc -c")
    expect(text.stderr).toMatch(/Compacted the conversation/)
    expect(fake.remainingReplies()).toBe(0)

    const [file] = await sessionFiles(sandbox)
    const saved = await readSession(file ?? "")
    const id = String(saved["id"])
    expect(saved.items.find((item) => item["_tag"] === "compaction")?.["summary"]).toBe("SUMMARY: the operator shared [redacted] and asked to count it.")
    const exported = await runCrystal(sandbox, ["sessions", "export", "--output", "-", id])
    const exportedFile = await runCrystal(sandbox, ["sessions", "export", id])
    const shown = await runCrystal(sandbox, ["sessions", "show", id])
    expect([exported.code, exportedFile.code, shown.code]).toEqual([0, 0, 0])
    expect(shown.stdout).toContain("[assistant] Your key is [redacted]; counting it. (calls bash)")
    expect((await fs.readdir(sandbox.workspace)).some((name) => name.startsWith("crystal-session-"))).toBe(true)

    expect([...(await leakingFiles(sandbox)), ...leakingOutputs({ json, text, exported, exportedFile, shown })]).toEqual([])
  })
})

describe("a provider's error that quotes a key", () => {
  it("ends the run without showing it, in text and in JSON", async () => {
    const { sandbox, fake, env } = await sandboxFor("openai-chat")
    const refusal = { kind: "error" as const, status: 400, message: `Invalid value for 'metadata': ${key}` }
    fake.script([refusal, refusal])
    const text = await runCrystal(sandbox, ["run", "hello"], { env })
    const json = await runCrystal(sandbox, ["run", "--format", "json", "hello"], { env })
    expect(text.code).not.toBe(0)
    expect(text.stderr).toContain("Invalid value for 'metadata': [redacted]")
    expect(jsonLines(json.stdout).find((event) => event["type"] === "error")?.["message"]).toContain("Invalid value for 'metadata': [redacted]")
    expect(leakingOutputs({ text, json })).toEqual([])
  })
})

describe("a saved session that holds a key (written before it was known)", () => {
  it("is listed, shown and exported without it, when the key is known now", async () => {
    const { sandbox, fake, env } = await sandboxFor("openai-chat")
    fake.script([{ text: `Your key is ${key}.` }])
    // The key is not in this run's environment: the session has nothing to redact it with.
    const run = await runCrystal(sandbox, ["run", "--format", "json", `remember ${key}`], { env: { LOCAL_KEY: env.LOCAL_KEY } })
    expect(run.code).toBe(0)
    const [file] = await sessionFiles(sandbox)
    const saved = await readSession(file ?? "")
    await fs.writeFile(file ?? "", JSON.stringify({ ...saved, title: `About ${key}` }))
    expect(leakIn(await fs.readFile(file ?? "", "utf8"))).toBeDefined()
    const id = String(saved["id"])

    const listed = await runCrystal(sandbox, ["sessions", "list"], { env })
    const shown = await runCrystal(sandbox, ["sessions", "show", id], { env })
    const exported = await runCrystal(sandbox, ["sessions", "export", "--output", "-", id], { env })
    expect([listed.code, shown.code, exported.code]).toEqual([0, 0, 0])
    expect(listed.stdout).toContain("About [redacted]")
    expect(shown.stdout).toContain("[user] remember [redacted]")
    expect(JSON.parse(exported.stdout).session.items[1].text).toBe("Your key is [redacted].")
    expect(leakingOutputs({ listed, shown, exported })).toEqual([])
  })
})

const isTitleRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("Name this coding session")

describe.runIf(tmuxAvailable())("a key in the model's own text, in the terminal UI", () => {
  it("shows none on the screen and stores none: streamed answer, tool call, todo list, title, a provider's error", async () => {
    const { sandbox, fake, env } = await sandboxFor("openai-chat")
    const title = { text: `Key ${key}` }
    fake.script([
      {
        text: ["Noting ", key.slice(0, 9), `${key.slice(9)} as a todo.`],
        chunkDelayMs: 30,
        toolCalls: [{ name: "todowrite", arguments: { todos: [{ content: `rotate ${key}`, status: "pending", priority: "high" }] } }]
      },
      (request) => (isTitleRequest(request) ? title : { text: `Done with ${key}.` }),
      (request) => (isTitleRequest(request) ? title : { text: `Done with ${key}.` }),
      { kind: "error", status: 400, message: `Invalid value for 'metadata': ${key}` }
    ])
    const terminal = openTerminal([crystalBinary, "--approval", "full"], { cwd: sandbox.workspace, env: { ...sandbox.env, ...env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(/approval full · local\/test-model/)
    terminal.type("remember my key")
    terminal.press("Enter")
    await terminal.waitFor(/Done with \[redacted\]\./)
    terminal.type("/todos")
    terminal.press("Enter")
    const screen = await terminal.waitFor(/☐ rotate \[redacted\]/)
    expect(screen).toContain("Noting [redacted] as a todo.")
    expect(leakIn(screen)).toBeUndefined()
    // The title is asked for in the background after the answer.
    for (let tries = 0; tries < 100 && !fake.requests.some(isTitleRequest); tries++) await new Promise((resolve) => setTimeout(resolve, 50))
    // A provider's refusal that quotes the key.
    terminal.type("again")
    terminal.press("Enter")
    expect(leakIn(await terminal.waitFor(/Invalid value for 'metadata': \[redacted\]/))).toBeUndefined()
    terminal.press("C-d")
    const end = await terminal.waitFor(/EXIT=0/)
    expect(leakIn(end)).toBeUndefined()
    const [file] = await sessionFiles(sandbox)
    const saved = await readSession(file ?? "")
    expect(saved["title"]).toBe("Key [redacted]")
    expect(saved["todos"]).toEqual([{ content: "rotate [redacted]", status: "pending", priority: "high" }])
    expect(await leakingFiles(sandbox)).toEqual([])
  })

  it("keeps a key the operator typed out of the prompt history on disk", async () => {
    const { sandbox, fake, env } = await sandboxFor("openai-chat")
    fake.script([(request) => (isTitleRequest(request) ? { text: "Rotation" } : { text: "Noted." })])
    const terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, ...env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(/local\/test-model/)
    terminal.type(`rotate ${key} tomorrow`)
    terminal.press("Enter")
    await terminal.waitFor(/Noted\./)
    terminal.press("C-d")
    await terminal.waitFor(/EXIT=0/)
    const history = await fs.readFile(historyFile(sandbox.home, sandbox.workspace), "utf8")
    expect(history).toContain("rotate [redacted] tomorrow")
    expect(await leakingFiles(sandbox)).toEqual([])
  })
})
