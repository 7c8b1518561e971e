/**
 * `crystal run` end to end: the compiled binary, a temp CRYSTAL_HOME and workspace, and the fake
 * LLM server speaking Chat Completions.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { crystalBinary, jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import type { FakeLlm } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"

const fakeServer = useFakeServers()

const repository = {
  "README.md": "# Widget\nA widget library.\n",
  "src/widget.ts": "export const widget = () => 42\n",
  "src/util.ts": "export const double = (n: number) => n * 2\n",
  "notes/todo.txt": "nothing\n"
}

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown; readonly tool_call_id?: string }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}

const bodyOf = (fake: FakeLlm, index: number): ChatBody => fake.requests[index]?.body as ChatBody

/** What Work mode offers in this build, in catalog order (SPEC M2). */
const workCatalog = [
  "read", "list", "tree", "glob", "grep", "search", "todowrite", "todoread", "plan", "question", "web_fetch", "task",
  "edit", "write", "bash", "bash_start", "bash_status", "bash_logs", "bash_stop"
]

/** The model of the brief: it globs, reads two files, then answers. */
const exploreScript = [
  { toolCalls: [{ id: "call_glob", name: "glob", arguments: { pattern: "src/**/*.ts" } }], usage: { inputTokens: 100, outputTokens: 5 } },
  {
    usage: { inputTokens: 200, outputTokens: 10 },
    text: "Reading both.",
    toolCalls: [
      { id: "call_read_1", name: "read", arguments: { path: "src/widget.ts" } },
      { id: "call_read_2", name: "read", arguments: { path: "src/util.ts" } }
    ]
  },
  { text: "widget() returns 42 and double() doubles its input.", usage: { inputTokens: 300, outputTokens: 20 } }
]

describe("crystal run", () => {
  it("explores the workspace with real tools and answers (text mode)", async () => {
    const sandbox = await makeSandbox(repository)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script(exploreScript)
    const result = await runCrystal(sandbox, ["run", "What does this library do?"])
    expect(result.stderr).toContain("→ glob src/**/*.ts")
    expect(result.stderr).toContain("→ read src/widget.ts")
    expect(result.code).toBe(0)
    expect(result.stdout).toBe("Reading both.\nwidget() returns 42 and double() doubles its input.\n")
    expect(fake.requests).toHaveLength(3)
    const toolMessages = bodyOf(fake, 2).messages.filter((message) => message.role === "tool")
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(["call_glob", "call_read_1", "call_read_2"])
    expect(toolMessages[0]?.content).toBe("src/util.ts\nsrc/widget.ts")
    expect(toolMessages[1]?.content).toBe("1\texport const widget = () => 42")
    expect(bodyOf(fake, 0).tools?.map((tool) => tool.function.name)).toEqual(workCatalog)
    expect(bodyOf(fake, 0).messages[0]?.role).toBe("system")
  })

  it("prints one JSON event per line and nothing else in json mode", async () => {
    const sandbox = await makeSandbox(repository)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script(exploreScript)
    const result = await runCrystal(sandbox, ["run", "--format", "json", "What does this library do?"])
    expect(result.code).toBe(0)
    const events = jsonLines(result.stdout)
    expect(events.map((event) => event["type"])).toEqual([
      "session",
      "tool_call",
      "approval",
      "tool_result",
      "text",
      "tool_call",
      "approval",
      "tool_result",
      "tool_call",
      "approval",
      "tool_result",
      "text",
      "done"
    ])
    const [session] = events
    expect(session).toMatchObject({ model: "local/test-model", workspace: sandbox.workspace, resumed: false })
    expect(events[1]).toEqual({ type: "tool_call", id: "call_glob", name: "glob", arguments: { pattern: "src/**/*.ts" } })
    expect(events[2]).toEqual({
      type: "approval",
      id: "call_glob",
      name: "glob",
      outcome: "allowed",
      by: "policy",
      mode: "default",
      risk: "low",
      authority: "read",
      scope: "workspace",
      summary: "glob src/**/*.ts in src"
    })
    expect(events[3]).toMatchObject({ type: "tool_result", id: "call_glob", name: "glob", ok: true, output: "src/util.ts\nsrc/widget.ts" })
    expect(events.at(-1)).toMatchObject({ type: "done", session: session?.["id"], usage: { input_tokens: 600, output_tokens: 35 } })
    expect(result.stderr).toBe("")
  })

  it("saves the session and continues it with --resume and --continue", async () => {
    const sandbox = await makeSandbox(repository)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "First answer." }, { text: "Second answer." }, { text: "Third answer." }])
    const first = await runCrystal(sandbox, ["run", "--format", "json", "first question"])
    expect(first.code).toBe(0)
    const id = String(jsonLines(first.stdout)[0]?.["id"])
    const files = await sessionFiles(sandbox)
    expect(files.map((file) => path.basename(file))).toEqual([`${id}.json`])
    const saved = await readSession(files[0] ?? "")
    expect(saved.items.map((item) => item["_tag"])).toEqual(["user", "assistant"])
    expect((await fs.stat(files[0] ?? "")).mode & 0o777).toBe(0o600)
    expect(JSON.stringify(saved)).not.toMatch(/sk-|api[_-]?key/i)

    const second = await runCrystal(sandbox, ["run", "--format", "json", "--resume", id.slice(0, 17), "second question"])
    expect(second.code).toBe(0)
    expect(jsonLines(second.stdout)[0]).toMatchObject({ id, resumed: true })
    expect(bodyOf(fake, 1).messages.map((message) => [message.role, message.content])).toEqual([
      ["system", expect.any(String)],
      ["user", "first question"],
      ["assistant", "First answer."],
      ["user", "second question"]
    ])

    const third = await runCrystal(sandbox, ["run", "--continue", "third question"])
    expect(third.code).toBe(0)
    expect(bodyOf(fake, 2).messages).toHaveLength(6)
    expect(await sessionFiles(sandbox)).toHaveLength(1)

    const listed = await runCrystal(sandbox, ["sessions", "list", "--format", "text"])
    expect(listed.code).toBe(0)
    expect(listed.stdout.split("\t").slice(0, 4)).toEqual([id, expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d$/), "6", "local/test-model"])
  })

  it("takes the prompt from stdin, and a piped `crystal` behaves like `crystal run`", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "from run" }, { text: "from crystal" }])
    const run = await runCrystal(sandbox, ["run"], { stdin: "question on stdin\n" })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe("from run\n")
    const bare = await runCrystal(sandbox, [], { stdin: "piped question" })
    expect(bare.code).toBe(0)
    expect(bare.stdout).toBe("from crystal\n")
    expect(bodyOf(fake, 0).messages.at(-1)?.content).toBe("question on stdin\n")
    expect(bodyOf(fake, 1).messages.at(-1)?.content).toBe("piped question")
  })

  it("retries a 429 after its retry-after and succeeds", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ kind: "error", status: 429, headers: { "retry-after-ms": "50" } }, { text: "made it" }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "hi"])
    expect(result.code).toBe(0)
    expect(fake.requests).toHaveLength(2)
    const events = jsonLines(result.stdout)
    expect(events.find((event) => event["type"] === "retry")).toMatchObject({ attempt: 1, max_attempts: 4, delay_ms: 50 })
    expect(events.find((event) => event["type"] === "text")).toMatchObject({ text: "made it" })
  })

  it("fails clearly on a cut stream and keeps the partial answer in the session", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    // Spaced out like a real model: Bun's fetch drops bytes that share a read with the reset.
    fake.script([{ text: ["The answer ", "is ", "forty", "-two."], cutAfterChunks: 3, chunkDelayMs: 150 }])
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(result.code).toBe(1)
    expect(result.stdout.startsWith("The answer ")).toBe(true)
    expect(result.stderr.trim().split("\n").at(-1)).toBe("crystal: the response stream from local ended before the model finished")
    const [file] = await sessionFiles(sandbox)
    const saved = await readSession(file ?? "")
    expect(saved.items.at(-1)).toMatchObject({ _tag: "assistant", incomplete: true })
    expect(String(saved.items.at(-1)?.["text"])).toMatch(/^The answer /)
  })

  it("ends the json stream with an error event on failure", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ kind: "error", status: 404, code: "model_not_found", message: "The model `test-model` does not exist" }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "hi"])
    expect(result.code).toBe(1)
    const last = jsonLines(result.stdout).at(-1)
    expect(last?.["type"]).toBe("error")
    expect(String(last?.["message"])).toMatch(/test-model/)
  })

  it("removes disabled tools from the request and tells the model", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "ok" }])
    const result = await runCrystal(sandbox, ["run", "--disable-tool", "grep", "--disable-tool", "tree", "hi"])
    expect(result.code).toBe(0)
    expect(bodyOf(fake, 0).tools?.map((tool) => tool.function.name)).toEqual(workCatalog.filter((name) => name !== "grep" && name !== "tree"))
    expect(String(bodyOf(fake, 0).messages[0]?.content)).toContain("Tools the operator disabled (do not call them): grep, tree")
  })

  it("stops a runaway turn at maxSteps with a note and a failure exit", async () => {
    const sandbox = await makeSandbox(repository)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { maxSteps: 2 })
    fake.script([
      { toolCalls: [{ name: "list", arguments: {} }] },
      { toolCalls: [{ name: "list", arguments: {} }] },
      { text: "never requested" }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "loop"])
    expect(result.code).toBe(1)
    expect(fake.requests).toHaveLength(2)
    const events = jsonLines(result.stdout)
    expect(events.at(-2)).toMatchObject({ type: "note" })
    expect(events.at(-1)).toMatchObject({ type: "error", message: "stopped at the step limit (2 model requests)" })
  })
})

describe("crystal run refuses to start", () => {
  it("on a broken config.json, naming the file and field, and leaves it untouched", async () => {
    const sandbox = await makeSandbox()
    const file = path.join(sandbox.home, "config.json")
    const broken = '{ "model": "local/m", "providers": { "local": { "protocol": "grpc" } } }'
    await fs.writeFile(file, broken)
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      `crystal: ${file}: providers.local.protocol: expected "openai-responses" or "openai-chat" or "deepseek" or "anthropic" or "gemini" or "ollama", got "grpc"\n`
    )
    expect(await fs.readFile(file, "utf8")).toBe(broken)
    expect(await sessionFiles(sandbox)).toEqual([])
  })

  it("without any provider, saying how to configure one", async () => {
    const sandbox = await makeSandbox()
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr.split("\n").filter(Boolean)).toHaveLength(1)
    expect(result.stderr).toMatch(/^crystal: no model provider is configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, DEEPSEEK_API_KEY or OLLAMA_HOST, or add a provider to .*config\.json/)
  })

  it("on an unknown --disable-tool name", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const result = await runCrystal(sandbox, ["run", "--disable-tool", "teleport", "hi"])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      "crystal: --disable-tool: unknown tool 'teleport' (built-in tools: read, list, tree, glob, grep, search, edit, write, todowrite, todoread, plan, propose_plan, question, skill, view_image, describe_image, web_fetch, bash, bash_start, bash_status, bash_logs, bash_stop, task)\n"
    )
    expect(fake.requests).toHaveLength(0)
  })

  it("when the provider's API key is not in the environment", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, {
      providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, apiKeyEnv: "LOCAL_API_KEY" } }
    })
    const missing = await runCrystal(sandbox, ["run", "hi"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe("crystal: provider 'local' needs an API key: set LOCAL_API_KEY in the environment\n")
    fake.script([{ kind: "error", status: 401, code: "invalid_api_key", message: "Incorrect API key provided" }])
    const rejected = await runCrystal(sandbox, ["run", "hi"], { env: { LOCAL_API_KEY: "wrong" } })
    expect(rejected.code).toBe(1)
    expect(rejected.stderr).toMatch(/LOCAL_API_KEY/)
    expect(fake.requests[0]?.headers["authorization"]).toBe("Bearer wrong")
  })

  it("on an unknown --resume id", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const result = await runCrystal(sandbox, ["run", "--resume", "20990101", "hi"])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^crystal: --resume: no session '20990101'/)
  })
})

describe("crystal", () => {
  it("answers --version at once", async () => {
    const sandbox = await makeSandbox()
    const result = await runCrystal(sandbox, ["--version"])
    expect(result).toMatchObject({ code: 0, stdout: "0.1.0\n" })
  })

  it("prints help and usage errors through the full command line parser", async () => {
    const sandbox = await makeSandbox()
    const help = await runCrystal(sandbox, ["run", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("--disable-tool")
    const bad = await runCrystal(sandbox, ["run", "--format", "xml", "hi"])
    expect(bad.code).toBe(2)
  })

  it("is the binary the tests were built for", () => {
    expect(path.basename(crystalBinary)).toMatch(/^crystal/)
  })
})

describe("crystal run interrupted", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143]
  ] as const)("on %s aborts the request, saves what arrived and exits %i", async (signal, code) => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: ["Partial ", "words ", "then ", "a ", "long ", "pause"], chunkDelayMs: 300 }])
    let pid = 0
    const running = runCrystal(sandbox, ["run", "--format", "json", "hi"], { onSpawn: (spawned) => (pid = spawned) })
    const request = await fake.waitForRequest(1)
    await new Promise((resolve) => setTimeout(resolve, 700))
    process.kill(pid, signal)
    const result = await running
    expect(result.code).toBe(code)
    expect((await request.closed).beforeReplyFinished).toBe(true)
    expect(jsonLines(result.stdout).at(-1)).toMatchObject({ type: "error", message: "interrupted; the session keeps what was complete" })
    const [file] = await sessionFiles(sandbox)
    const last = (await readSession(file ?? "")).items.at(-1)
    expect(last).toMatchObject({ _tag: "assistant", incomplete: true, finishReason: "cancelled" })
    expect(String(last?.["text"])).toMatch(/^Partial /)
  })
})

describe("crystal run with nothing configured", () => {
  it("uses a reachable Ollama and its first model", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    fake.serve("GET", "/api/tags", { models: [{ name: "qwen3-coder:30b" }, { name: "llama3:8b" }] })
    fake.script([{ text: "hello from ollama" }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "hi"], { env: { OLLAMA_HOST: fake.url.replace("http://", "") } })
    expect(result.code).toBe(0)
    expect(jsonLines(result.stdout)[0]).toMatchObject({ model: "ollama/qwen3-coder:30b" })
    expect(fake.requests.at(-1)?.protocol).toBe("ollama")
  })
})

describe("one crystal per session", () => {
  it("refuses to open a session another crystal process has open", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "first" }, { text: "slow answer", delayMs: 3_000 }, { text: "free again" }])
    const first = await runCrystal(sandbox, ["run", "--format", "json", "start"])
    const id = String(jsonLines(first.stdout)[0]?.["id"])
    const holding = runCrystal(sandbox, ["run", "--resume", id, "continue slowly"])
    await fake.waitForRequest(2)
    const second = await runCrystal(sandbox, ["run", "--resume", id, "me too"])
    // Busy, not bad usage: the same command works once the other process is done.
    expect(second.code).toBe(3)
    expect(second.stderr).toMatch(new RegExp(`^crystal: session ${id} is open in another crystal process \\(pid \\d+\\)`))
    expect((await holding).code).toBe(0)
    const again = await runCrystal(sandbox, ["run", "--resume", id, "now it is free"])
    expect(again).toMatchObject({ code: 0, stdout: "free again\n" })
  })
})
