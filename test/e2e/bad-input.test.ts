/**
 * Bad input, as a careless operator or a hostile model gives it, against the compiled binary:
 * every case ends with the documented exit code, one line on stderr (or the JSON error event
 * under --format json) naming the flag, file, field or variable, and never a stack trace.
 * Cases of a table run a few at a time inside one test; a failure names its case.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, sessionFiles, writeLocalConfig, type CrystalResult, type Sandbox } from "../support/crystal.ts"
import { protocols } from "../support/fake-llm/protocols.ts"
import type { RecordedRequest } from "../support/fake-llm/recorded-request.ts"
import type { StaticReply } from "../support/fake-llm/reply.ts"
import type { FakeLlm } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"

const fakeServer = useFakeServers()

/** What a stack trace or an unhandled defect leaves in the output. */
const traceMarks: ReadonlyArray<RegExp> = [
  /^\s+at /m,
  /internal error/i,
  /RangeError|TypeError|ReferenceError|SyntaxError|Maximum call stack/,
  /\$bunfs|node_modules|\.ts:\d+/
]

interface Expectation {
  readonly code: number
  /** Each must appear in the line. */
  readonly mentions: ReadonlyArray<string>
  /** The error comes as a JSON event on stdout instead of a line on stderr. */
  readonly json?: boolean
}

/** The failures of one case, as sentences (empty: it holds). */
const problemsOf = (result: CrystalResult, expected: Expectation): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const all = `${result.stdout}\n${result.stderr}`
  for (const mark of traceMarks) if (mark.test(all)) problems.push(`output matches ${mark}`)
  if (result.code !== expected.code) problems.push(`exit ${result.code}, expected ${expected.code}`)
  let line = ""
  if (expected.json === true) {
    if (result.stderr !== "") problems.push("stderr is not empty under --format json")
    const events = (() => {
      try {
        return jsonLines(result.stdout)
      } catch {
        problems.push("stdout is not JSON lines")
        return []
      }
    })()
    const last = events.at(-1)
    if (last?.["type"] !== "error") problems.push("the last event is not an error")
    line = typeof last?.["message"] === "string" ? last["message"] : ""
  } else {
    const lines = result.stderr.split("\n").filter((text) => text !== "")
    if (lines.length !== 1) problems.push(`stderr has ${lines.length} lines`)
    line = lines[0] ?? ""
  }
  for (const mention of expected.mentions) if (!line.includes(mention)) problems.push(`the line does not mention ${JSON.stringify(mention)}`)
  return problems.length === 0 ? [] : [...problems, `line: ${JSON.stringify(line)}`, `stdout: ${JSON.stringify(result.stdout.slice(0, 400))}`]
}

/** Runs `cases` four at a time; returns the failing ones with their problems. */
const runTable = async <C extends { readonly name: string }>(
  cases: ReadonlyArray<C>,
  run: (testCase: C) => Promise<ReadonlyArray<string>>
): Promise<Record<string, ReadonlyArray<string>>> => {
  const failures: Record<string, ReadonlyArray<string>> = {}
  const queue = [...cases]
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const problems = await run(next)
      if (problems.length > 0) failures[next.name] = problems
    }
  }
  await Promise.all([worker(), worker(), worker(), worker()])
  return failures
}

const unknownFlag = "unknown flag"

interface ArgsCase {
  readonly name: string
  readonly argv: ReadonlyArray<string>
  readonly expected: Expectation
}

const flagCase = (argv: ReadonlyArray<string>, ...mentions: ReadonlyArray<string>): ArgsCase => ({
  name: argv.join(" "),
  argv,
  expected: { code: 2, mentions }
})

const jsonFlagCase = (argv: ReadonlyArray<string>, ...mentions: ReadonlyArray<string>): ArgsCase => ({
  name: argv.join(" "),
  argv,
  expected: { code: 2, mentions, json: true }
})

const flagCases: ReadonlyArray<ArgsCase> = [
  flagCase(["run", "--mode", "bogus", "hi"], "--mode", '"bogus"', "plan, work"),
  flagCase(["run", "--mode=bogus", "hi"], "--mode", '"bogus"', "plan, work"),
  flagCase(["--mode", "Work"], "--mode", '"Work"', "plan, work"),
  flagCase(["space", "--mode", "x", "dir"], "crystal space", "--mode", '"x"'),
  flagCase(["run", "--approval", "yolo", "hi"], "--approval", '"yolo"', "plan, default, edit, review, audit, full"),
  flagCase(["run", "--approval="], "--approval", "needs a value"),
  flagCase(["run", "--format", "xml", "hi"], "--format", '"xml"', "text, json"),
  flagCase(["--format", "yaml"], "--format", '"yaml"'),
  flagCase(["run", "--prompt-attachments", "maybe", "hi"], "--prompt-attachments", '"maybe"', "on, off"),
  flagCase(["run", "--bogus", "x", "hi"], unknownFlag, "--bogus"),
  flagCase(["run", "--bogus=1", "hi"], unknownFlag, "--bogus"),
  flagCase(["--bogus"], unknownFlag, "--bogus"),
  flagCase(["--bogus", "x"], unknownFlag, "--bogus"),
  flagCase(["run", "-x"], unknownFlag, "-x"),
  flagCase(["run", "-m", "local/x", "hi"], unknownFlag, "-m"),
  flagCase(["space", "--yes"], unknownFlag, "--yes"),
  flagCase(["run", "--mode"], "--mode", "needs a value", "plan, work"),
  flagCase(["run", "--mode", "--continue", "hi"], "--mode", "needs a value"),
  flagCase(["run", "--model"], "--model", "needs a value", "PROVIDER/MODEL"),
  // The full parser (reached through --log-level) read no flag after a dash prompt: it ran in work mode.
  flagCase(["run", "--log-level", "debug", "-5", "--mode", "plan"], "crystal run", "--mode", "would not be read as given", "after --"),
  flagCase(["run", "--log-level=info", "- a dash prompt", "--approval", "audit"], "crystal run", "--approval", "would not be read as given"),
  flagCase(["run", "--model", "-x", "hi"], "--model", "needs a value"),
  flagCase(["run", "--resume"], "--resume", "needs a value", "ID"),
  flagCase(["--resume"], "--resume", "needs a value"),
  flagCase(["run", "--disable-tool"], "--disable-tool", "needs a value"),
  flagCase(["run", "--prompt-set"], "--prompt-set", "needs a value"),
  flagCase(["run", "--prompt-attachment"], "--prompt-attachment", "needs a value"),
  flagCase(["run", "--continue=yes", "hi"], "--continue", "takes no value", '"yes"'),
  flagCase(["run", "--continue", "--continue", "hi"], "--continue", "twice"),
  flagCase(["run", "--mode", "plan", "--mode", "work", "hi"], "--mode", "twice", '"plan"', '"work"'),
  jsonFlagCase(["run", "--format=json", "--format=text", "hi"], "--format", "twice"),
  flagCase(["run", "a", "b"], "one prompt only", '"a"', '"b"'),
  flagCase(["space", "a", "b"], "one directory only"),
  flagCase(["bogus"], "unknown command", '"bogus"', "run, space, sessions"),
  flagCase(["--continue", "extra"], "unknown command", '"extra"'),
  flagCase(["sessions", "show"], "crystal sessions", "ID"),
  flagCase(["sessions", "bogus"], "crystal sessions", "Invalid subcommand"),
  flagCase(["sessions", "list", "--bogus"], "crystal sessions", "--bogus"),
  flagCase(["sessions", "list", "extra"], "crystal sessions", "extra"),
  flagCase(["promptsets", "enable"], "crystal promptsets", "NAME"),
  flagCase(["prompt-attachments", "bogus"], "crystal prompt-attachments", "Invalid subcommand"),
  flagCase(["run", "--disable-tool", "nosuchtool", "hi"], "--disable-tool", "nosuchtool", "built-in tools"),
  flagCase(["run", "--resume", "a", "--continue", "hi"], "--resume", "--continue"),
  jsonFlagCase(["run", "--format", "json", "--mode", "x", "hi"], "--mode", '"x"', "plan, work"),
  jsonFlagCase(["run", "--format=json", "--bogus"], unknownFlag, "--bogus"),
  jsonFlagCase(["run", "--format", "json", "a", "b"], "one prompt only"),
  jsonFlagCase(["run", "--format", "json", "--approval"], "--approval", "needs a value"),
  jsonFlagCase(["run", "--format", "json", "--disable-tool", "nosuchtool", "hi"], "--disable-tool", "nosuchtool")
]

interface ConfigCase {
  readonly name: string
  /** The text of config.json; the fake server's URL replaces BASE. */
  readonly text: string
  /** Beside the file's path. */
  readonly mentions: ReadonlyArray<string>
}

const provider = (fields: string): string =>
  `{"model": "local/test-model", "providers": {"local": {"protocol": "openai-chat", "baseURL": "BASE", ${fields}}}}`

const configCases: ReadonlyArray<ConfigCase> = [
  { name: "baseURL not a url", text: `{"providers": {"local": {"baseURL": "not a url"}}, "model": "local/x"}`, mentions: ["providers.local.baseURL", '"not a url"'] },
  { name: "baseURL without scheme", text: `{"providers": {"local": {"baseURL": "127.0.0.1:8080/v1"}}}`, mentions: ["providers.local.baseURL"] },
  { name: "baseURL ftp", text: `{"providers": {"local": {"baseURL": "ftp://example.com"}}}`, mentions: ["providers.local.baseURL", "ftp://"] },
  { name: "baseURL empty", text: `{"providers": {"local": {"baseURL": ""}}}`, mentions: ["providers.local.baseURL"] },
  { name: "baseURL a number", text: `{"providers": {"local": {"baseURL": 8080}}}`, mentions: ["providers.local.baseURL", "8080"] },
  { name: "baseURL file scheme", text: `{"providers": {"x": {"baseURL": "file:///etc/passwd"}}}`, mentions: ["providers.x.baseURL"] },
  { name: "not JSON", text: "{", mentions: ["not valid JSON", "line"] },
  { name: "trailing comma", text: `{"model": "a/b",}`, mentions: ["not valid JSON", "line 1"] },
  { name: "comments", text: `{\n  // a comment\n  "model": "a/b"\n}`, mentions: ["not valid JSON", "line 2"] },
  { name: "empty file", text: "", mentions: ["not valid JSON"] },
  { name: "byte order mark junk", text: "\u00ff\u00fe{}", mentions: ["not valid JSON"] },
  { name: "an array", text: "[]", mentions: ["JSON object"] },
  { name: "a string", text: `"config"`, mentions: ["JSON object"] },
  { name: "null", text: "null", mentions: ["JSON object"] },
  { name: "model a number", text: `{"model": 5}`, mentions: ["model", "5"] },
  { name: "providers an array", text: `{"providers": []}`, mentions: ["providers"] },
  { name: "unknown protocol", text: `{"providers": {"local": {"protocol": "soap"}}}`, mentions: ["providers.local.protocol", '"soap"'] },
  { name: "headers not strings", text: `{"providers": {"local": {"headers": {"X-A": 1}}}}`, mentions: ["providers.local.headers"] },
  { name: "apiKeyEnv a number", text: `{"providers": {"local": {"apiKeyEnv": 3}}}`, mentions: ["providers.local.apiKeyEnv"] },
  { name: "contextWindow negative", text: provider(`"models": {"test-model": {"contextWindow": -1}}`), mentions: ["contextWindow"] },
  { name: "contextWindow fractional", text: provider(`"models": {"test-model": {"contextWindow": 1.5}}`), mentions: ["contextWindow"] },
  { name: "imageInput a string", text: provider(`"models": {"test-model": {"imageInput": "yes"}}`), mentions: ["imageInput"] },
  { name: "bashTimeoutSeconds zero", text: `{"bashTimeoutSeconds": 0}`, mentions: ["bashTimeoutSeconds"] },
  { name: "bashTimeoutSeconds a string", text: `{"bashTimeoutSeconds": "120"}`, mentions: ["bashTimeoutSeconds"] },
  { name: "background timeout bogus", text: `{"backgroundBashTimeoutSeconds": "forever"}`, mentions: ["backgroundBashTimeoutSeconds"] },
  { name: "maxSteps zero", text: `{"maxSteps": 0}`, mentions: ["maxSteps"] },
  { name: "maxSteps fractional", text: `{"maxSteps": 2.5}`, mentions: ["maxSteps"] },
  { name: "compaction threshold 2", text: `{"compaction": {"threshold": 2}}`, mentions: ["compaction.threshold"] },
  { name: "compaction keepRecentTokens negative", text: `{"compaction": {"keepRecentTokens": -5}}`, mentions: ["compaction.keepRecentTokens"] },
  { name: "compaction a number", text: `{"compaction": 1}`, mentions: ["compaction"] },
  { name: "skills a string", text: `{"skills": "off"}`, mentions: ["skills"] },
  { name: "retry.maxWaitSeconds negative", text: `{"retry": {"maxWaitSeconds": -1}}`, mentions: ["retry.maxWaitSeconds"] },
  { name: "retry.maxWaitSeconds a string", text: `{"retry": {"maxWaitSeconds": "60"}}`, mentions: ["retry.maxWaitSeconds"] },
  { name: "retry a number", text: `{"retry": 60}`, mentions: ["retry", "maxWaitSeconds"] },
  { name: "nested 100,000 deep", text: `{"x": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`, mentions: ["deeper than"] },
  { name: "unclosed deep nesting", text: `{"x": ${"{\"a\":".repeat(50_000)}`, mentions: ["deeper than"] }
]

interface EnvCase {
  readonly name: string
  readonly env: Record<string, string>
  readonly argv: ReadonlyArray<string>
  readonly mentions: ReadonlyArray<string>
  readonly code?: number
}

const envCases: ReadonlyArray<EnvCase> = [
  { name: "OPENAI_BASE_URL not a url", env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "not a url" }, argv: ["run", "hi"], mentions: ["OPENAI_BASE_URL", '"not a url"'] },
  { name: "ANTHROPIC_BASE_URL ftp", env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "ftp://x" }, argv: ["run", "hi"], mentions: ["ANTHROPIC_BASE_URL", "ftp://x"] },
  { name: "DEEPSEEK_BASE_URL junk", env: { DEEPSEEK_API_KEY: "k", DEEPSEEK_BASE_URL: "::" }, argv: ["run", "hi"], mentions: ["DEEPSEEK_BASE_URL"] },
  { name: "OLLAMA_HOST junk", env: { OLLAMA_HOST: "not a host at all" }, argv: ["run", "--model", "ollama/x", "hi"], mentions: ["OLLAMA_HOST"] },
  { name: "CRYSTAL_HOME a file", env: { CRYSTAL_HOME: "/etc/hostname" }, argv: ["run", "hi"], mentions: ["/etc/hostname/config.json", "ENOTDIR"] },
  { name: "no provider at all", env: {}, argv: ["run", "hi"], mentions: ["no model provider is configured"] },
  { name: "unknown provider", env: { OPENAI_API_KEY: "k" }, argv: ["run", "--model", "nope/x", "hi"], mentions: ["--model", "nope"] },
  { name: "empty model", env: { OPENAI_API_KEY: "k" }, argv: ["run", "--model=", "hi"], mentions: ["--model"] },
  { name: "key missing", env: {}, argv: ["run", "--model", "openai/gpt-5.1", "hi"], mentions: ["OPENAI_API_KEY"] },
  { name: "empty prompt", env: { OPENAI_API_KEY: "k" }, argv: ["run", "  "], mentions: ["prompt is empty"] },
  { name: "space without a terminal", env: {}, argv: ["space", "."], mentions: ["needs a terminal"] }
]

describe("bad input: flags", () => {
  it(`${flagCases.length} bad command lines each end in one clear line`, async () => {
    const sandbox = await makeSandbox()
    const failures = await runTable(flagCases, async (testCase) => problemsOf(await runCrystal(sandbox, testCase.argv), testCase.expected))
    expect(failures).toEqual({})
  })
})

describe("bad input: config.json", () => {
  it(`${configCases.length} broken config files each fail at load naming the file and the field`, async () => {
    const fake = await fakeServer()
    const failures = await runTable(
      [...configCases.map((c) => ({ ...c, json: false })), ...configCases.slice(0, 8).map((c) => ({ ...c, name: `${c.name} (json)`, json: true }))],
      async (testCase) => {
        const sandbox = await makeSandbox()
        const file = path.join(sandbox.home, "config.json")
        await fs.writeFile(file, testCase.text.replace("BASE", `${fake.url}/v1`))
        const argv = testCase.json ? ["run", "--format", "json", "hi"] : ["run", "hi"]
        return problemsOf(await runCrystal(sandbox, argv), { code: 2, mentions: [file, ...testCase.mentions], json: testCase.json })
      }
    )
    expect(failures).toEqual({})
    expect(fake.requests).toHaveLength(0)
  })

  it("a config.json that is a directory is named with the reason", async () => {
    const sandbox = await makeSandbox()
    await fs.mkdir(path.join(sandbox.home, "config.json"))
    expect(problemsOf(await runCrystal(sandbox, ["run", "hi"]), { code: 2, mentions: [path.join(sandbox.home, "config.json"), "EISDIR"] })).toEqual([])
  })
})

describe("bad input: environment", () => {
  it(`${envCases.length} bad environments each end in one clear line`, async () => {
    const failures = await runTable(envCases, async (testCase) => {
      const sandbox = await makeSandbox()
      const result = await runCrystal(sandbox, testCase.argv, { env: testCase.env })
      return problemsOf(result, { code: testCase.code ?? 2, mentions: testCase.mentions })
    })
    expect(failures).toEqual({})
  })
})

/** A saved session of the sandbox's workspace, made by a real run; returns its file. */
const savedSession = async (sandbox: Sandbox, fake: FakeLlm): Promise<string> => {
  fake.script([{ text: "first answer" }])
  const result = await runCrystal(sandbox, ["run", "first question"])
  expect(result.code).toBe(0)
  const [file] = await sessionFiles(sandbox)
  if (file === undefined) throw new Error("no session was saved")
  return file
}

interface SessionCase {
  readonly name: string
  /** Writes the bad session file into the sessions folder; returns its path. */
  readonly plant: (dir: string, good: string, workspace: string) => Promise<string>
  readonly reason: string
}

const later = async (file: string): Promise<void> => {
  const future = new Date(Date.now() + 60_000)
  await fs.utimes(file, future, future)
}

const sessionCases: ReadonlyArray<SessionCase> = [
  {
    name: "truncated",
    plant: async (dir, good) => {
      const file = path.join(dir, "20991231-000000-aaaaaa.json")
      await fs.writeFile(file, good.slice(0, Math.floor(good.length / 2)))
      return file
    },
    reason: "not valid JSON"
  },
  {
    name: "not a session",
    plant: async (dir, _good, workspace) => {
      const file = path.join(dir, "20991231-000000-bbbbbb.json")
      await fs.writeFile(file, JSON.stringify({ version: 99, workspace }))
      return file
    },
    reason: "not a Crystal session"
  },
  {
    name: "a directory",
    plant: async (dir) => {
      const file = path.join(dir, "20991231-000000-cccccc.json")
      await fs.mkdir(file)
      return file
    },
    reason: "EISDIR"
  },
  {
    name: "items nested 100,000 deep",
    plant: async (dir, good) => {
      const file = path.join(dir, "20991231-000000-dddddd.json")
      await fs.writeFile(file, good.replace(`"items":[`, `"items":[${"[".repeat(100_000)}${"]".repeat(100_000)},`))
      return file
    },
    reason: "deeper than"
  },
  {
    name: "empty",
    plant: async (dir, _good, workspace) => {
      const file = path.join(dir, "20991231-000000-eeeeee.json")
      await fs.writeFile(file, "")
      void workspace
      return file
    },
    reason: "not valid JSON"
  }
]

describe("bad input: session files", () => {
  it(`--continue and --resume over ${sessionCases.length} kinds of broken session file name the file and why`, async () => {
    const fake = await fakeServer()
    const failures = await runTable(sessionCases, async (testCase) => {
      const sandbox = await makeSandbox()
      await writeLocalConfig(sandbox, fake.url)
      const goodFile = await savedSession(sandbox, fake)
      const good = await fs.readFile(goodFile, "utf8")
      const bad = await testCase.plant(path.dirname(goodFile), good, sandbox.workspace)
      await later(bad)
      const id = path.basename(bad, ".json")
      const problems: Array<string> = []
      const checks: ReadonlyArray<readonly [string, ReadonlyArray<string>, Expectation]> = [
        ["--continue", ["run", "--continue", "go on"], { code: 2, mentions: ["--continue", bad, testCase.reason] }],
        ["--continue json", ["run", "--format", "json", "--continue", "go on"], { code: 2, mentions: [bad, testCase.reason], json: true }],
        ["--resume", ["run", "--resume", id, "go on"], { code: 2, mentions: ["--resume", bad, testCase.reason] }],
        ["sessions show", ["sessions", "show", id], { code: 1, mentions: [bad, testCase.reason] }],
        ["sessions export", ["sessions", "export", id, "--output", "-"], { code: 1, mentions: [bad, testCase.reason] }],
        ["sessions delete", ["sessions", "delete", id], { code: 1, mentions: [bad] }]
      ]
      for (const [label, argv, expected] of checks) {
        for (const problem of problemsOf(await runCrystal(sandbox, argv), expected)) problems.push(`${label}: ${problem}`)
      }
      if ((await fs.stat(bad).catch(() => undefined)) === undefined) problems.push("the broken file was removed")
      return problems
    })
    expect(failures).toEqual({})
    expect(fake.requests).toHaveLength(sessionCases.length)
  })

  it("--continue without any session, and --resume of an unknown or ambiguous id, say so in one line", async () => {
    const fake = await fakeServer()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url)
    expect(problemsOf(await runCrystal(sandbox, ["run", "--continue", "hi"]), { code: 2, mentions: ["--continue", "no earlier session"] })).toEqual([])
    expect(problemsOf(await runCrystal(sandbox, ["run", "--resume", "nosuch", "hi"]), { code: 2, mentions: ["--resume", "nosuch"] })).toEqual([])
    await savedSession(sandbox, fake)
    fake.script([{ text: "second" }])
    expect((await runCrystal(sandbox, ["run", "another"])).code).toBe(0)
    expect(problemsOf(await runCrystal(sandbox, ["run", "--resume", "2", "hi"]), { code: 2, mentions: ["--resume", "matches 2 sessions"] })).toEqual([])
  })

  it("an older broken file of another workspace does not stop --continue", async () => {
    const fake = await fakeServer()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url)
    const goodFile = await savedSession(sandbox, fake)
    const stale = path.join(path.dirname(goodFile), "20200101-000000-ffffff.json")
    await fs.writeFile(stale, `{"workspace": "/elsewhere", "items": [`)
    const past = new Date(Date.now() - 86_400_000)
    await fs.utimes(stale, past, past)
    fake.script([{ text: "continued" }])
    const result = await runCrystal(sandbox, ["run", "--continue", "go on"])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(result.stdout).toBe("continued\n")
  })

  it("removes temp files a killed process left between write and rename, and only those", async () => {
    const fake = await fakeServer()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url)
    const dir = path.join(sandbox.home, "sessions")
    await fs.mkdir(dir, { recursive: true })
    // pid 2^22 + 1 is above Linux's pid_max limit: no process runs under it.
    const orphans = [`.20261201-000000-abcdef.json.4194305.${Date.now()}.0.tmp`, `.x.json.${process.pid}.${Date.now() - 2 * 86_400_000}.3.tmp`]
    const kept = [`.y.json.${process.pid}.${Date.now()}.0.tmp`, "notes.tmp", "other.json.tmp"]
    for (const name of [...orphans, ...kept]) await fs.writeFile(path.join(dir, name), "{")
    await fs.writeFile(path.join(sandbox.home, `.config.json.4194305.${Date.now()}.1.tmp`), "{")
    fake.script([{ text: "ok" }])
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(result.code).toBe(0)
    const left = (await fs.readdir(dir)).filter((name) => name.endsWith(".tmp")).sort()
    expect(left).toEqual([...kept].sort())
    expect((await fs.readdir(sandbox.home)).filter((name) => name.endsWith(".tmp"))).toEqual([])
  })
})

/** Where each SDK expects the server (as in protocols.test.ts). */
const baseURLs: Readonly<Record<string, (url: string) => string>> = {
  "openai-chat": (url) => `${url}/v1`,
  "openai-responses": (url) => `${url}/v1`,
  anthropic: (url) => url,
  gemini: (url) => url,
  ollama: (url) => url,
  deepseek: (url) => `${url}/deepseek`
}

const deepArray = (depth: number): string => `${"[".repeat(depth)}${"]".repeat(depth)}`
const deepObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`

/**
 * A tool call whose `path` argument is the JSON text `inner`, as the protocol puts it on the wire.
 * Built from the protocol's own frames with a placeholder, so nothing here serialises the deep value.
 */
const rawToolCall = (protocolName: string, inner: string) => (request: RecordedRequest): StaticReply => {
  const protocol = protocols.find((candidate) => candidate.name === protocolName)
  if (protocol === undefined) throw new Error(`no fake protocol ${protocolName}`)
  const placeholder = "__DEEP_ARGUMENT__"
  const { contentType, frames } = protocol.stream({ toolCalls: [{ name: "read", arguments: { path: placeholder }, argumentChunks: 1 }] }, request)
  // Inside a JSON string (arguments sent as text) the inner quotes are escaped; as an object, the value replaces the quoted placeholder.
  const escaped = JSON.stringify(inner).slice(1, -1)
  const chunks = frames.map((frame) =>
    frame.replaceAll(`\\"${placeholder}\\"`, escaped).replaceAll(`"${placeholder}"`, inner)
  )
  return { kind: "raw", headers: { "content-type": contentType }, chunks }
}

interface ArgumentCase {
  readonly name: string
  readonly protocol: string
  readonly reply: (request: RecordedRequest) => StaticReply
  /** In the tool result the model reads. */
  readonly told: string
}

const tooDeep = "nest deeper than 64 levels"
const notJson = "not valid JSON"

const argumentCases: ReadonlyArray<ArgumentCase> = [
  ...Object.keys(baseURLs).flatMap((protocol): ReadonlyArray<ArgumentCase> => [
    { name: `${protocol}: arrays 50,000 deep`, protocol, reply: rawToolCall(protocol, deepArray(50_000)), told: tooDeep },
    { name: `${protocol}: objects 20,000 deep`, protocol, reply: rawToolCall(protocol, deepObject(20_000)), told: tooDeep },
    { name: `${protocol}: 65 levels`, protocol, reply: rawToolCall(protocol, deepArray(64)), told: tooDeep }
  ]),
  ...["openai-chat", "openai-responses", "anthropic", "deepseek"].flatMap((protocol): ReadonlyArray<ArgumentCase> => [
    { name: `${protocol}: unclosed brackets 50,000 deep`, protocol, reply: () => ({ toolCalls: [{ name: "read", arguments: `{"path":${"[".repeat(50_000)}` }] }), told: tooDeep },
    { name: `${protocol}: not JSON`, protocol, reply: () => ({ toolCalls: [{ name: "read", arguments: "{path: src}" }] }), told: notJson }
  ]),
  { name: "openai-chat: brackets inside a string are not nesting", protocol: "openai-chat", reply: () => ({ toolCalls: [{ name: "read", arguments: { path: "[".repeat(1_000) } }] }), told: "[[[[" },
  { name: "openai-chat: an array for arguments", protocol: "openai-chat", reply: () => ({ toolCalls: [{ name: "read", arguments: "[1,2]" }] }), told: "invalid arguments" },
  { name: "openai-chat: a number for arguments", protocol: "openai-chat", reply: () => ({ toolCalls: [{ name: "read", arguments: "42" }] }), told: "invalid arguments" },
  { name: "openai-chat: a wrong field type", protocol: "openai-chat", reply: () => ({ toolCalls: [{ name: "read", arguments: { path: 7 } }] }), told: "invalid arguments" },
  { name: "openai-chat: an unknown tool", protocol: "openai-chat", reply: () => ({ toolCalls: [{ name: "nosuch", arguments: {} }] }), told: "no tool named 'nosuch'" }
]

describe("bad input: tool arguments from the model", () => {
  it(`${argumentCases.length} unusable tool calls become tool errors and the turn goes on`, async () => {
    const failures = await runTable(argumentCases, async (testCase) => {
      const fake = await fakeServer()
      const sandbox = await makeSandbox()
      const baseURL = baseURLs[testCase.protocol]?.(fake.url) ?? fake.url
      await writeLocalConfig(sandbox, fake.url, {
        model: "fake/test-model",
        providers: { fake: { protocol: testCase.protocol, baseURL, apiKeyEnv: "FAKE_KEY", models: { "test-model": { contextWindow: 1_000_000 } } } }
      })
      fake.script([testCase.reply, { text: "understood" }])
      const result = await runCrystal(sandbox, ["run", "--format", "json", "read it"], { env: { FAKE_KEY: "k" } })
      const problems: Array<string> = []
      const all = `${result.stdout}\n${result.stderr}`
      for (const mark of traceMarks) if (mark.test(all)) problems.push(`output matches ${mark}`)
      if (result.code !== 0) problems.push(`exit ${result.code}: ${result.stderr.slice(0, 300)} ${result.stdout.slice(-300)}`)
      const events = result.code === 0 ? jsonLines(result.stdout) : []
      const toolResult = events.find((event) => event["type"] === "tool_result")
      if (toolResult?.["ok"] !== false) problems.push("no failed tool result")
      if (!String(toolResult?.["output"] ?? "").includes(testCase.told)) problems.push(`the model was told ${JSON.stringify(toolResult?.["output"])}`)
      if (events.at(-1)?.["type"] !== "done") problems.push("the turn did not finish")
      if (fake.requests.length !== 2) problems.push(`${fake.requests.length} requests`)
      else if (fake.requests[1]?.rawBody.includes("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[") === true && testCase.told === tooDeep) {
        problems.push("the deep arguments went back to the model")
      }
      const [session] = await sessionFiles(sandbox)
      if (session !== undefined && testCase.told === tooDeep && (await fs.readFile(session, "utf8")).includes("[".repeat(100))) {
        problems.push("the session file holds the deep arguments")
      }
      return problems
    })
    expect(failures).toEqual({})
  })
})

describe("bad input: the operator's message and the server's retry-after", () => {
  it("refuses a prompt of several MB with its size and the model's limit, and never summarises it", async () => {
    const fake = await fakeServer()
    const failures = await runTable(
      [
        { name: "text", json: false },
        { name: "json", json: true }
      ],
      async (testCase) => {
        const sandbox = await makeSandbox()
        await writeLocalConfig(sandbox, fake.url)
        const prompt = `${"the operator's own words ".repeat(200_000)}END`
        const argv = testCase.json ? ["run", "--format", "json"] : ["run"]
        const result = await runCrystal(sandbox, argv, { stdin: prompt })
        const problems = [...problemsOf(result, { code: 1, mentions: ["4.8 MiB", "local/test-model", "32,768-token context window", "not sent"], json: testCase.json })]
        for (const file of await sessionFiles(sandbox)) {
          if ((await fs.readFile(file, "utf8")).includes("the operator's own words")) problems.push("the session stored the refused message")
        }
        return problems
      }
    )
    expect(failures).toEqual({})
    expect(fake.requests).toHaveLength(0)
  })

  it("fails at once on a retry-after beyond retry.maxWaitSeconds, naming the wait and the setting", async () => {
    const fake = await fakeServer()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ kind: "error", status: 429, message: "slow down", headers: { "retry-after": "3600" } }, { text: "never" }])
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(problemsOf(result, { code: 1, mentions: ["rate limit", "60 min", "retry.maxWaitSeconds (60 s"] })).toEqual([])
    expect(fake.requests).toHaveLength(1)
  })

  it("waits a retry-after within retry.maxWaitSeconds, showing the wait", async () => {
    const fake = await fakeServer()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url, { retry: { maxWaitSeconds: 2 } })
    fake.script([{ kind: "error", status: 429, message: "slow down", headers: { "retry-after": "1" } }, { text: "done" }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "hi"])
    expect(result.code).toBe(0)
    const events = jsonLines(result.stdout)
    expect(events.find((event) => event["type"] === "retry")?.["delay_ms"]).toBe(1_000)
    expect(events.at(-1)?.["type"]).toBe("done")
  })

  it("a retry-after beyond a configured cap of 0 fails under --format json as one error event", async () => {
    const fake = await fakeServer()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url, { retry: { maxWaitSeconds: 0 } })
    fake.script([{ kind: "error", status: 503, message: "busy", headers: { "retry-after": "5" } }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "hi"])
    expect(problemsOf(result, { code: 1, mentions: ["5 s", "retry.maxWaitSeconds (0 s"], json: true })).toEqual([])
  })
})
