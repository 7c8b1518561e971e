/**
 * Usage and cost through the compiled binary: each protocol's own usage fields (sent by the fake
 * server as the real APIs send them) reach `crystal run --format json`'s done event; prices from
 * config.json give a cost, no price gives tokens only; totals survive a resume and show in
 * `crystal sessions show`; a bad price is refused in one line.
 */
import * as fsp from "node:fs/promises"
import { afterEach, describe, expect, it } from "vitest"
import type { Protocol } from "../../src/config/schema.ts"
import { jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm, type ScriptedUsage } from "../support/fake-llm/server.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const fakeLlm = async (): Promise<FakeLlm> => {
  const fake = await startFakeLlm()
  servers.push(fake)
  return fake
}

const env = { FAKE_KEY: "test-key" }

/** Where each SDK expects the server, and the usage fields its protocol reports (what the done event can show). */
const protocols: ReadonlyArray<readonly [Protocol, (url: string) => string, Record<string, number>]> = [
  ["openai-chat", (url) => `${url}/v1`, { input_tokens: 1_200, output_tokens: 300, cached_input_tokens: 800, reasoning_tokens: 120 }],
  ["openai-responses", (url) => `${url}/v1`, { input_tokens: 1_200, output_tokens: 300, cached_input_tokens: 800, cache_write_tokens: 100, reasoning_tokens: 120 }],
  ["anthropic", (url) => url, { input_tokens: 1_200, output_tokens: 300, cached_input_tokens: 800, cache_write_tokens: 100, reasoning_tokens: 120 }],
  ["gemini", (url) => url, { input_tokens: 1_200, output_tokens: 300, cached_input_tokens: 800, reasoning_tokens: 120 }],
  ["ollama", (url) => url, { input_tokens: 1_200, output_tokens: 300 }],
  ["deepseek", (url) => `${url}/deepseek`, { input_tokens: 1_200, output_tokens: 300, cached_input_tokens: 800, reasoning_tokens: 120 }]
]

const scripted: ScriptedUsage = { inputTokens: 1_200, outputTokens: 300, cachedInputTokens: 800, cacheWriteTokens: 100, reasoningTokens: 120 }

const price = { input: 2, output: 10, cachedInput: 0.5, cacheWrite: 4 }

/** What `usage` costs at `price`: cache reads and writes at theirs, the rest of the input at the input price. */
const expectedCost = (usage: Record<string, number>): number => {
  const cached = usage["cached_input_tokens"] ?? 0
  const written = usage["cache_write_tokens"] ?? 0
  const uncached = (usage["input_tokens"] ?? 0) - cached - written
  return (uncached * price.input + cached * price.cachedInput + written * price.cacheWrite + (usage["output_tokens"] ?? 0) * price.output) / 1_000_000
}

const writeConfig = (sandbox: Sandbox, fake: FakeLlm, protocol: Protocol, baseURL: (url: string) => string, pricing?: Record<string, unknown>) =>
  writeLocalConfig(sandbox, fake.url, {
    model: "fake/test-model",
    providers: { fake: { protocol, baseURL: baseURL(fake.url), apiKeyEnv: "FAKE_KEY", models: { "test-model": { reasoning: true } } } },
    ...(pricing === undefined ? {} : { pricing })
  })

const doneOf = (stdout: string): Record<string, unknown> => {
  const done = jsonLines(stdout).at(-1)
  expect(done?.["type"]).toBe("done")
  return done ?? {}
}

describe.each(protocols)("usage on the %s protocol", (protocol, baseURL, reported) => {
  it("reaches the done event as the protocol reports it, priced from config.json", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeLlm()
    await writeConfig(sandbox, fake, protocol, baseURL, { "fake/test-model": price })
    fake.script([{ reasoning: "Think first.", text: "done", usage: scripted }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "hi"], { env })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const done = doneOf(result.stdout)
    expect(done["usage"]).toEqual(reported)
    expect(done["cost_usd"]).toBeCloseTo(expectedCost(reported), 12)
    expect(done["session_usage"]).toEqual({ ...reported, cost_usd: done["cost_usd"] })
  })
})

describe("usage and cost", () => {
  const chatURL = (url: string) => `${url}/v1`

  it("shows tokens only when the model has no price, and says why in sessions show", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeLlm()
    await writeConfig(sandbox, fake, "openai-chat", chatURL)
    fake.script([{ text: "done", usage: { inputTokens: 50, outputTokens: 7 } }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "hi"], { env })
    expect(result.code).toBe(0)
    const done = doneOf(result.stdout)
    expect(done["usage"]).toEqual({ input_tokens: 50, output_tokens: 7, cached_input_tokens: 0, reasoning_tokens: 0 })
    expect(done).not.toHaveProperty("cost_usd")
    expect(done["session_usage"]).not.toHaveProperty("cost_usd")
    const shown = await runCrystal(sandbox, ["sessions", "show", String(done["session"]), "--format", "text"], { env })
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("usage\t50 in, 7 out\n")
    expect(shown.stdout).toContain('cost\tunknown (no price for fake/test-model; set "pricing" in config.json)\n')
  })

  it("keeps the session's totals across a resume, and sessions show prices them", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeLlm()
    await writeConfig(sandbox, fake, "openai-chat", chatURL, { "fake/test-model": { input: 1, output: 2 } })
    fake.script([
      { text: "first", usage: { inputTokens: 1_000, outputTokens: 100 } },
      { text: "second", usage: { inputTokens: 3_000, outputTokens: 400 } }
    ])
    const first = doneOf((await runCrystal(sandbox, ["run", "--format", "json", "one"], { env })).stdout)
    const id = String(first["session"])
    const second = doneOf((await runCrystal(sandbox, ["run", "--format", "json", "--resume", id, "two"], { env })).stdout)
    expect(second["usage"]).toMatchObject({ input_tokens: 3_000, output_tokens: 400 })
    expect(second["cost_usd"]).toBeCloseTo(0.0038, 12)
    expect(second["session_usage"]).toMatchObject({ input_tokens: 4_000, output_tokens: 500 })
    expect((second["session_usage"] as Record<string, unknown>)["cost_usd"]).toBeCloseTo(0.005, 12)
    const shown = await runCrystal(sandbox, ["sessions", "show", id, "--format", "text"], { env })
    expect(shown.stdout).toContain("usage\t4,000 in, 500 out\n")
    expect(shown.stdout).toContain("cost\t$0.0050\n")
  })

  it("loads a session saved before usage was kept by model, and gives its cost as unknown rather than a guess", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeLlm()
    await writeConfig(sandbox, fake, "openai-chat", chatURL, { "fake/test-model": { input: 1, output: 2 } })
    fake.script([
      { text: "first", usage: { inputTokens: 1_000, outputTokens: 100 } },
      { text: "second", usage: { inputTokens: 3_000, outputTokens: 400 } }
    ])
    const first = doneOf((await runCrystal(sandbox, ["run", "--format", "json", "one"], { env })).stdout)
    const [file = ""] = await sessionFiles(sandbox)
    const { usageByModel: _dropped, ...older } = await readSession(file)
    await fsp.writeFile(file, JSON.stringify(older))
    const resumed = await runCrystal(sandbox, ["run", "--format", "json", "--resume", String(first["session"]), "two"], { env })
    expect(resumed.code).toBe(0)
    const second = doneOf(resumed.stdout)
    expect(second["cost_usd"]).toBeCloseTo(0.0038, 12)
    expect(second["session_usage"]).toEqual({ input_tokens: 4_000, output_tokens: 500, cached_input_tokens: 0, reasoning_tokens: 0 })
  })

  it("counts the reviewer's request in the session's usage, not in the turn's", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeLlm()
    await writeConfig(sandbox, fake, "openai-chat", chatURL, { "fake/test-model": { input: 1, output: 2 } })
    fake.script([
      { toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }], usage: { inputTokens: 100, outputTokens: 10 } },
      { text: JSON.stringify({ risk_level: "low", user_authorization: "high", reason: "asked for" }), usage: { inputTokens: 1_000, outputTokens: 20 } },
      { text: "made", usage: { inputTokens: 200, outputTokens: 5 } }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "review", "create made.txt"], { env })
    expect(result.code).toBe(0)
    expect(fake.requests).toHaveLength(3)
    const done = doneOf(result.stdout)
    expect(done["usage"]).toMatchObject({ input_tokens: 300, output_tokens: 15 })
    expect(done["cost_usd"]).toBeCloseTo(0.00033, 12)
    expect(done["session_usage"]).toMatchObject({ input_tokens: 1_300, output_tokens: 35 })
    expect((done["session_usage"] as Record<string, unknown>)["cost_usd"]).toBeCloseTo(0.00137, 12)
  })

  it("refuses a bad price in one line naming the field", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeLlm()
    const file = await writeConfig(sandbox, fake, "openai-chat", chatURL, { "fake/test-model": { input: "cheap", output: 2 } })
    const result = await runCrystal(sandbox, ["run", "hi"], { env })
    expect(result.code).not.toBe(0)
    expect(result.stderr.trim().split("\n")).toEqual([`crystal: ${file}: pricing.fake/test-model.input: expected number, got "cheap"`])
    expect(fake.requests).toHaveLength(0)
  })
})
