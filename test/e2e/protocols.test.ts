/**
 * The same explore-and-answer scenario through each of the six wire protocols, run by the compiled
 * binary against the fake server speaking that protocol.
 */
import { afterEach, describe, expect, it } from "vitest"
import type { Protocol } from "../../src/config/schema.ts"
import { jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** Where each SDK expects the server: some append their API path themselves. */
const baseURLs: ReadonlyArray<readonly [Protocol, (url: string) => string]> = [
  ["openai-chat", (url) => `${url}/v1`],
  ["openai-responses", (url) => `${url}/v1`],
  ["anthropic", (url) => url],
  ["gemini", (url) => url],
  ["ollama", (url) => url],
  ["deepseek", (url) => `${url}/deepseek`]
]

const repository = {
  "src/widget.ts": "export const widget = () => 42\n",
  "src/util.ts": "export const double = (n: number) => n * 2\n"
}

describe.each(baseURLs)("the %s protocol", (protocol, baseURL) => {
  it("explores with tools, answers, and resumes the session", async () => {
    const sandbox = await makeSandbox(repository)
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url, {
      model: "fake/test-model",
      providers: { fake: { protocol, baseURL: baseURL(fake.url), apiKeyEnv: "FAKE_KEY", models: { "test-model": { reasoning: true } } } }
    })
    fake.script([
      { reasoning: "Look for the sources first.", toolCalls: [{ name: "glob", arguments: { pattern: "src/*.ts" } }] },
      {
        toolCalls: [
          { name: "read", arguments: { path: "src/widget.ts" } },
          { name: "read", arguments: { path: "src/util.ts" } }
        ]
      },
      { text: "widget() returns 42; double() doubles." },
      { text: "Still 42." }
    ])
    const env = { FAKE_KEY: "test-key" }
    const result = await runCrystal(sandbox, ["run", "--format", "json", "what is here?"], { env })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const events = jsonLines(result.stdout)
    expect(events.filter((event) => event["type"] === "tool_result").map((event) => [event["name"], event["ok"]])).toEqual([
      ["glob", true],
      ["read", true],
      ["read", true]
    ])
    expect(events.find((event) => event["type"] === "reasoning")?.["text"]).toBe("Look for the sources first.")
    expect(events.filter((event) => event["type"] === "text").at(-1)?.["text"]).toBe("widget() returns 42; double() doubles.")
    expect(fake.requests.every((request) => request.protocol === protocol)).toBe(true)
    const toolOutputs = JSON.stringify(fake.requests[2]?.body)
    expect(toolOutputs).toContain("export const widget = () => 42")
    expect(toolOutputs).toContain("export const double")

    const [file] = await sessionFiles(sandbox)
    const session = await readSession(file ?? "")
    const resumed = await runCrystal(sandbox, ["run", "--format", "json", "--resume", String(session["id"]), "and now?"], { env })
    expect(resumed.code).toBe(0)
    expect(jsonLines(resumed.stdout).find((event) => event["type"] === "text")?.["text"]).toBe("Still 42.")
    expect(JSON.stringify(fake.requests[3]?.body)).toContain("what is here?")
  })
})
