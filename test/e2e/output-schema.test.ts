/**
 * `crystal run --output-schema FILE` through each of the six wire protocols, run by the compiled
 * binary against the fake server speaking that protocol: the native structured-output field on the
 * wire, the answer checked, one retry with the errors, a distinct exit code after a second invalid
 * answer, and one line for a schema file that is missing, not JSON or not a schema.
 */
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import Ajv2020Module from "ajv/dist/2020.js"
import { afterEach, describe, expect, it } from "vitest"
import type { Protocol } from "../../src/config/schema.ts"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm, type ModelReply, type RecordedRequest } from "../support/fake-llm/server.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { files: { type: "integer" }, summary: { type: "string" } },
  required: ["files", "summary"],
  additionalProperties: false
}
const valid = { files: 2, summary: "two sources" }
const invalid = { files: "two" }

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)
const at = (value: unknown, ...keys: ReadonlyArray<string>): unknown => keys.reduce((inner, key) => (isRecord(inner) ? inner[key] : undefined), value)
const toolNames = (request: RecordedRequest | undefined): ReadonlyArray<string> =>
  JSON.stringify(request?.body ?? {}).match(/"name":"(glob|read|bash|final_answer)"/g)?.map((match) => match.slice(8, -1)) ?? []

interface ProtocolCase {
  readonly protocol: Protocol
  readonly baseURL: (url: string) => string
  /** How the model gives a final answer on this wire. */
  readonly answer: (value: unknown) => ModelReply
  /** The native field on a request that carries tools; undefined where the wire sends none there. */
  readonly native: (request: RecordedRequest) => unknown
  /** The native field on the retry, which carries no tools. */
  readonly nativeOnRetry?: (request: RecordedRequest) => unknown
}

const text = (value: unknown): ModelReply => ({ text: JSON.stringify(value, null, 2) })

const cases: ReadonlyArray<ProtocolCase> = [
  {
    protocol: "openai-chat",
    baseURL: (url) => `${url}/v1`,
    answer: text,
    native: (request) => at(request.body, "response_format")
  },
  {
    protocol: "openai-responses",
    baseURL: (url) => `${url}/v1`,
    answer: text,
    native: (request) => at(request.body, "text", "format")
  },
  {
    protocol: "anthropic",
    baseURL: (url) => url,
    // Through the forced answer tool.
    answer: (value) => ({ toolCalls: [{ name: "final_answer", arguments: value as object }] }),
    native: (request) => ({ tool_choice: at(request.body, "tool_choice"), answerTool: (at(request.body, "tools") as Array<unknown>).find((tool) => at(tool, "name") === "final_answer") })
  },
  {
    protocol: "gemini",
    baseURL: (url) => url,
    answer: text,
    native: (request) => ({ mime: at(request.body, "generationConfig", "responseMimeType"), schema: at(request.body, "generationConfig", "responseJsonSchema") }),
    nativeOnRetry: (request) => ({ mime: at(request.body, "generationConfig", "responseMimeType"), schema: at(request.body, "generationConfig", "responseJsonSchema") })
  },
  {
    protocol: "ollama",
    baseURL: (url) => url,
    answer: text,
    native: (request) => at(request.body, "format"),
    nativeOnRetry: (request) => at(request.body, "format")
  },
  {
    protocol: "deepseek",
    baseURL: (url) => `${url}/deepseek`,
    answer: text,
    native: (request) => at(request.body, "response_format")
  }
]

const expectedNative: Record<Protocol, unknown> = {
  "openai-chat": { type: "json_schema", json_schema: { name: "final_answer", schema, strict: false } },
  "openai-responses": { type: "json_schema", name: "final_answer", schema, strict: false },
  anthropic: { tool_choice: { type: "any" }, answerTool: expectAnswerTool() },
  // Gemini 2.x refuses a response MIME type next to function declarations: the schema goes by
  // instruction while tools are offered, and in the native fields on the retry (which has none).
  gemini: { mime: undefined, schema: undefined },
  // Ollama lets `format` override tool calling: with tools, the schema goes by instruction only.
  ollama: undefined,
  deepseek: { type: "json_object" }
}

const expectedOnRetry: Partial<Record<Protocol, unknown>> = { ollama: schema, gemini: { mime: "application/json", schema } }

function expectAnswerTool(): unknown {
  return { name: "final_answer", description: expect.stringContaining("final answer"), input_schema: schema }
}

const env = { FAKE_KEY: "test-key" }

interface SetUpOptions {
  readonly answerSchema?: unknown
  /** The model's entry in config.json, e.g. `{ reasoning: true }`. */
  readonly model?: Record<string, unknown>
}

const setUp = async (protocolCase: ProtocolCase, options: SetUpOptions = {}): Promise<{ sandbox: Sandbox; fake: FakeLlm; schemaFile: string }> => {
  const sandbox = await makeSandbox({ "src/a.ts": "export const a = 1\n", "src/b.ts": "export const b = 2\n" })
  const fake = await startFakeLlm()
  servers.push(fake)
  await writeLocalConfig(sandbox, fake.url, {
    model: "fake/test-model",
    providers: {
      fake: { protocol: protocolCase.protocol, baseURL: protocolCase.baseURL(fake.url), apiKeyEnv: "FAKE_KEY", models: { "test-model": options.model ?? {} } }
    }
  })
  const schemaFile = path.join(sandbox.workspace, "answer.schema.json")
  await fsp.writeFile(schemaFile, JSON.stringify(options.answerSchema ?? schema))
  return { sandbox, fake, schemaFile }
}

const caseOf = (protocol: Protocol): ProtocolCase => cases.find((candidate) => candidate.protocol === protocol) as ProtocolCase

/** The instruction every request carries, with the schema in it. */
const carriesInstruction = (request: RecordedRequest | undefined): boolean =>
  JSON.stringify(request?.body ?? {}).includes(JSON.stringify(JSON.stringify(schema)).slice(1, -1))

describe.each(cases)("--output-schema on the $protocol protocol", (protocolCase) => {
  it("a valid first answer after a tool call: stdout is exactly the value, the native field was sent", async () => {
    const { sandbox, fake, schemaFile } = await setUp(protocolCase)
    fake.script([{ toolCalls: [{ name: "glob", arguments: { pattern: "src/*.ts" } }] }, protocolCase.answer(valid)])
    const result = await runCrystal(sandbox, ["run", "--output-schema", schemaFile, "how many sources?"], { env })
    expect(result.stderr).not.toContain("crystal:")
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`${JSON.stringify(valid)}\n`)
    expect(fake.requests).toHaveLength(2)
    for (const request of fake.requests) {
      expect(protocolCase.native(request)).toEqual(expectedNative[protocolCase.protocol])
      expect(carriesInstruction(request)).toBe(true)
      // The tools still work before the answer.
      expect(toolNames(request)).toContain("glob")
    }
    expect(JSON.stringify(fake.requests[1]?.body)).toContain("src/a.ts")
  })

  it("an invalid answer is retried once with the errors, and the valid second answer is the output (--format json)", async () => {
    const { sandbox, fake, schemaFile } = await setUp(protocolCase)
    fake.script([protocolCase.answer(invalid), protocolCase.answer(valid)])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--output-schema", schemaFile, "how many sources?"], { env })
    expect(result.code).toBe(0)
    const events = jsonLines(result.stdout)
    const done = events.at(-1)
    expect(done?.["type"]).toBe("done")
    expect(done?.["output"]).toEqual(valid)
    expect(events.some((event) => event["type"] === "note" && String(event["message"] ?? event["text"]).includes("/files: must be integer"))).toBe(true)
    expect(fake.requests).toHaveLength(2)
    const retry = fake.requests[1]
    const retryBody = JSON.stringify(retry?.body)
    expect(retryBody).toContain("/files: must be integer")
    expect(retryBody).toContain("must have required property 'summary'")
    // The retry only corrects the answer: no tool definitions but the answer tool.
    expect(toolNames(retry).filter((name) => name === "glob" || name === "bash")).toEqual([])
    if (protocolCase.nativeOnRetry !== undefined && retry !== undefined) expect(protocolCase.nativeOnRetry(retry)).toEqual(expectedOnRetry[protocolCase.protocol])
    if (protocolCase.protocol === "anthropic") expect(at(retry?.body, "tool_choice")).toEqual({ type: "tool", name: "final_answer" })
  })

  it("an answer invalid twice exits 4 with the errors on stderr and nothing on stdout", async () => {
    const { sandbox, fake, schemaFile } = await setUp(protocolCase)
    fake.script([protocolCase.answer(invalid), protocolCase.answer({ files: 2 })])
    const result = await runCrystal(sandbox, ["run", "--output-schema", schemaFile, "how many sources?"], { env })
    expect(result.code).toBe(4)
    expect(result.stdout).toBe("")
    const failure = result.stderr.split("\n").filter((line) => line.startsWith("crystal: "))
    expect(failure).toHaveLength(1)
    expect(failure[0]).toContain(schemaFile)
    expect(failure[0]).toContain("must have required property 'summary'")
    expect(fake.requests).toHaveLength(2)
  })
})

describe("--output-schema with --format json", () => {
  it("an answer invalid twice ends the stream with an error event naming the errors (exit 4), no done event", async () => {
    const { sandbox, fake, schemaFile } = await setUp(cases[0] as ProtocolCase)
    fake.script([{ text: "not json" }, text({ files: 2, summary: "x", extra: true })])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--output-schema", schemaFile, "how many?"], { env })
    expect(result.code).toBe(4)
    const events = jsonLines(result.stdout)
    expect(events.some((event) => event["type"] === "done")).toBe(false)
    const last = events.at(-1)
    expect(last?.["type"]).toBe("error")
    expect(last?.["message"]).toContain("must NOT have additional properties (\"extra\")")
    expect(JSON.stringify(fake.requests[1]?.body)).toContain("the answer is not one JSON value")
  })
})

describe("--output-schema: what is not run", () => {
  const broken: ReadonlyArray<readonly [string, string | undefined, string]> = [
    ["missing", undefined, "does not exist"],
    ["not JSON", "{ type: object", "is not JSON"],
    ["not a schema", JSON.stringify({ type: "strin" }), "is not a valid JSON Schema"],
    ["not an object", "[1, 2]", "expected an object"],
    ["an unknown draft", JSON.stringify({ $schema: "http://json-schema.org/draft-04/schema#" }), "supported: 2020-12"]
  ]
  it.each(broken)("a schema file that is %s: one line naming it, exit 2, no model request", async (_name, content, problem) => {
    const { sandbox, fake } = await setUp(cases[0] as ProtocolCase)
    const file = path.join(sandbox.workspace, "broken.json")
    if (content !== undefined) await fsp.writeFile(file, content)
    for (const json of [false, true]) {
      const result = await runCrystal(sandbox, ["run", ...(json ? ["--format", "json"] : []), "--output-schema", file, "hi"], { env })
      expect(result.code).toBe(2)
      const output = json ? result.stdout : result.stderr
      expect(output.trimEnd().split("\n")).toHaveLength(1)
      expect(output).toContain(`--output-schema: ${file} `)
      expect(output).toContain(problem)
      if (json) expect(jsonLines(result.stdout)[0]?.["type"]).toBe("error")
    }
    expect(fake.requests).toHaveLength(0)
  })

  it.each([[[]], [["space"]]])("an interactive session refuses the flag with one line (crystal %s)", async (command) => {
    const sandbox = await makeSandbox()
    const result = await runCrystal(sandbox, [...command, "--output-schema", "x.json"])
    expect(result.code).toBe(2)
    expect(result.stderr.trimEnd().split("\n")).toEqual([expect.stringContaining("--output-schema is for crystal run")])
  })
})

describe("--output-schema: what an answer cannot do", () => {
  const closed = { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false }

  it("a property name with a line break cannot forge a line of stderr", async () => {
    const { sandbox, fake, schemaFile } = await setUp(caseOf("openai-chat"), { answerSchema: closed })
    const forged = '{"n":1,"x\\ncrystal: fake":1}'
    fake.script([{ text: forged }, { text: forged }])
    const result = await runCrystal(sandbox, ["run", "--output-schema", schemaFile, "n?"], { env })
    expect(result.code).toBe(4)
    expect(result.stderr.split("\n").filter((line) => line.startsWith("crystal:"))).toEqual([expect.stringContaining('("x\\ncrystal: fake")')])
    expect(result.stderr).not.toMatch(/^crystal: fake/m)
  })

  it("Anthropic with thinking on: text the model writes before calling the answer tool is not glued onto the answer", async () => {
    const { sandbox, fake, schemaFile } = await setUp(caseOf("anthropic"), { answerSchema: closed, model: { reasoning: true, maxOutputTokens: 16000 } })
    fake.script([{ reasoning: "one file", text: "Here is my answer.", toolCalls: [{ name: "final_answer", arguments: { n: 1 } }] }])
    const result = await runCrystal(sandbox, ["run", "--output-schema", schemaFile, "n?"], { env })
    expect(result.stderr).not.toContain("crystal:")
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('{"n":1}\n')
    expect(at(fake.requests[0]?.body, "tool_choice")).toEqual({ type: "auto" })
    expect(fake.requests).toHaveLength(1)
  })

  it("the retry that offers no tools runs none the model calls anyway: the call is an invalid answer (exit 4)", async () => {
    const { sandbox, fake, schemaFile } = await setUp(caseOf("openai-chat"), { answerSchema: closed })
    fake.script([{ text: "nope" }, { toolCalls: [{ name: "write", arguments: { path: "pwned.txt", content: "pwned\n" } }] }, { text: '{"n":1}' }])
    const result = await runCrystal(sandbox, ["run", "--approval", "edit", "--output-schema", schemaFile, "n?"], { env })
    await expect(fsp.access(path.join(sandbox.workspace, "pwned.txt"))).rejects.toThrow()
    expect(result.code).toBe(4)
    expect(result.stdout).toBe("")
    const failure = result.stderr.split("\n").filter((line) => line.startsWith("crystal: "))
    expect(failure).toEqual([expect.stringContaining("called write")])
    expect(fake.requests).toHaveLength(2)
  })
})

describe("--output-schema and the session's secrets", () => {
  it("an answer a redacted secret makes invalid is not printed: exit 4, one line saying a secret was redacted", async () => {
    const keyed = { type: "object", properties: { key: { type: "string", pattern: "^test-" } }, required: ["key"] }
    for (const json of [false, true]) {
      const { sandbox, fake, schemaFile } = await setUp(caseOf("openai-chat"), { answerSchema: keyed })
      fake.script([{ text: JSON.stringify({ key: env.FAKE_KEY }) }])
      const result = await runCrystal(sandbox, ["run", ...(json ? ["--format", "json"] : []), "--output-schema", schemaFile, "the key?"], { env })
      expect(result.code).toBe(4)
      expect(result.stdout).not.toContain(env.FAKE_KEY)
      const failure = json
        ? jsonLines(result.stdout).filter((event) => event["type"] === "error").map((event) => String(event["message"]))
        : result.stderr.split("\n").filter((line) => line.startsWith("crystal: "))
      expect(failure).toEqual([expect.stringContaining("a secret was redacted from it")])
      if (json) expect(jsonLines(result.stdout).some((event) => event["type"] === "done")).toBe(false)
      else expect(result.stdout).toBe("")
    }
  })
})

describe.each(cases)("--output-schema with a schema that is not an object, on the $protocol protocol", (protocolCase) => {
  const list = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "array",
    items: { $ref: "#/$defs/file" },
    $defs: { file: { type: "string", pattern: "^src/" } }
  }
  const files = ["src/a.ts", "src/b.ts"]
  /** What the wire's native field carries, where it has one. */
  const nativeSchema = (request: RecordedRequest): unknown =>
    protocolCase.protocol === "anthropic"
      ? at((at(request.body, "tools") as Array<unknown>).find((tool) => at(tool, "name") === "final_answer"), "input_schema")
      : protocolCase.protocol === "openai-chat"
        ? at(request.body, "response_format", "json_schema", "schema")
        : protocolCase.protocol === "openai-responses"
          ? at(request.body, "text", "format", "schema")
          : undefined
  /** The answer as the wire gives it: inside the wrapper object where the native field needs an object root. */
  const wireAnswer = (): ModelReply =>
    protocolCase.protocol === "anthropic"
      ? { toolCalls: [{ name: "final_answer", arguments: { answer: files } }] }
      : protocolCase.protocol === "openai-chat" || protocolCase.protocol === "openai-responses"
        ? { text: JSON.stringify({ answer: files }) }
        : { text: JSON.stringify(files) }

  it("the answer comes out as the bare value, and the schema on the wire still resolves its $ref", async () => {
    const { sandbox, fake, schemaFile } = await setUp(protocolCase, { answerSchema: list })
    fake.script([wireAnswer()])
    const result = await runCrystal(sandbox, ["run", "--output-schema", schemaFile, "which files?"], { env })
    expect(result.stderr).not.toContain("crystal:")
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`${JSON.stringify(files)}\n`)
    const sent = fake.requests[0] === undefined ? undefined : nativeSchema(fake.requests[0])
    if (sent !== undefined) {
      expect(at(sent, "type")).toBe("object")
      // Compiled as the provider would: every $ref resolves, and the wrapped answer is checked by it.
      const validate = new Ajv2020Module.default({ strict: false }).compile(sent as object)
      expect(validate({ answer: files })).toBe(true)
      expect(validate({ answer: ["lib/c.ts"] })).toBe(false)
    }
  })
})
