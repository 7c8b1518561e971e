/**
 * The reviewer's side request as the fake LLM server sees it, through the real Chat Completions
 * adapter: no tools, exactly the review system text, one user message from the bound template;
 * strict answers, one retry, and "ask" whenever no usable verdict arrives in time.
 */
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import type { Classification } from "../../../src/approval/classification.ts"
import { Providers } from "../../../src/providers/providers.ts"
import { conversationDigest } from "../../../src/engine/conversation-digest.ts"
import type { ReviewRequest } from "../../../src/approval/reviewer.ts"
import { makeReviewer, reviewUserText } from "../../../src/engine/reviewer.ts"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import { makeOpenAIChatClient } from "../../../src/providers/openai-chat.ts"
import { startFakeLlm, type FakeLlm, type RecordedRequest } from "../../support/fake-llm/server.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const systemText = "REVIEW SYSTEM: rate the call and answer with the JSON verdict."
const userTemplate = [
  "Conversation:",
  "{{conversation}}",
  "Tool: {{tool_name}}",
  "Arguments: {{tool_arguments}}",
  "Host: risk {{host_risk}}, authority {{host_authority}}: {{classification_summary}}",
  "Unbound stays: {{model}}"
].join("\n")

const classification: Classification = {
  risk: "medium",
  authority: "write",
  scope: "workspace",
  summary: "write notes.txt",
  paths: []
}

const request: ReviewRequest = {
  toolName: "write",
  arguments: { path: "notes.txt", content: "{{tool_name}} stays literal" },
  classification,
  conversation: conversationDigest([
    { _tag: "user", id: "u1", text: "Please write notes.txt" },
    { _tag: "assistant", id: "a1", text: "Writing it.", model: "local/m", toolCalls: [{ id: "c1", name: "write", arguments: { path: "notes.txt" } }] }
  ])
}

const verdict = (risk_level: string, user_authorization: string, reason = "The operator asked for it.") =>
  JSON.stringify({ risk_level, user_authorization, reason })

const setup = async (timeoutMs?: number) => {
  const fake = await startFakeLlm()
  servers.push(fake)
  const model: ModelEntry = {
    ref: "local/m",
    id: "m",
    provider: { name: "local", protocol: "openai-chat", baseURL: `${fake.url}/v1`, apiKeyEnv: [], headers: {} },
    capabilities: { contextWindow: 32768, maxOutputTokens: 1024, imageInput: false, reasoning: false },
    listed: true
  }
  const activeModel = Providers.fixed([{ entry: model, client: makeOpenAIChatClient(model, {}) }])
  const reviewer = makeReviewer({ activeModel, prompts: Effect.succeed({ system: systemText, userTemplate }), timeoutMs })
  const review = (req: ReviewRequest = request) => Effect.runPromise(reviewer.review(req))
  return { fake, review }
}

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
  readonly tools?: unknown
  readonly tool_choice?: unknown
}

const body = (recorded: RecordedRequest | undefined): ChatBody => recorded?.body as ChatBody

describe("the reviewer", () => {
  it("sends a side request with no tools, the review system text and the bound review.user template", async () => {
    const { fake, review } = await setup()
    fake.script([{ text: verdict("medium", "high") }])
    const result = await review()
    expect(result).toEqual({
      outcome: "allow",
      reason: "The operator asked for it.",
      verdict: { risk_level: "medium", user_authorization: "high", reason: "The operator asked for it." }
    })
    expect(fake.requests).toHaveLength(1)
    const sent = body(fake.requests[0])
    expect(sent.tools).toBeUndefined()
    expect(sent.tool_choice).toBeUndefined()
    expect(sent.messages).toEqual([
      { role: "system", content: systemText },
      { role: "user", content: reviewUserText(userTemplate, request) }
    ])
    expect(sent.messages[1]?.content).toBe(
      [
        "Conversation:",
        "[user] Please write notes.txt",
        "[assistant] Writing it.",
        '[assistant calls write] {"path":"notes.txt"}',
        "Tool: write",
        'Arguments: {"path":"notes.txt","content":"{{tool_name}} stays literal"}',
        "Host: risk medium, authority write: write notes.txt",
        "Unbound stays: {{model}}"
      ].join("\n")
    )
  })

  it("binds host values in the same pass, the review slots winning", () => {
    const host = new Map([["workspace", "/w {{tool_name}}"], ["tool_name", "spoofed"]])
    expect(reviewUserText("{{workspace}} | {{tool_name}} | {{host_risk}} | {{unknown}}", request, undefined, host)).toBe(
      "/w {{tool_name}} | write | medium | {{unknown}}"
    )
  })

  it("derives the outcome with the host's floors, whatever the reviewer's risk", async () => {
    const { fake, review } = await setup()
    // The host says medium; the reviewer's "low" cannot lower it, so medium authorization asks.
    fake.script([{ text: "```json\n" + verdict("low", "medium", "Follows from the task.") + "\n```" }])
    expect(await review()).toMatchObject({ outcome: "ask", reason: "Follows from the task." })
  })

  it("denies with the reviewer's reason", async () => {
    const { fake, review } = await setup()
    fake.script([{ text: verdict("medium", "low", "Nobody asked for notes.") }])
    expect(await review()).toMatchObject({ outcome: "deny", reason: "Nobody asked for notes." })
  })

  it("asks again once after a malformed answer, saying what was wrong, and takes the second answer", async () => {
    const { fake, review } = await setup()
    fake.script([{ text: "Looks fine to me!" }, { text: verdict("medium", "high") }])
    expect(await review()).toMatchObject({ outcome: "allow" })
    expect(fake.requests).toHaveLength(2)
    const retry = body(fake.requests[1])
    expect(retry.tools).toBeUndefined()
    expect(retry.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"])
    expect(retry.messages[0]?.content).toBe(systemText)
    expect(retry.messages[1]?.content).toBe(reviewUserText(userTemplate, request))
    expect(retry.messages[2]?.content).toBe("Looks fine to me!")
    expect(retry.messages[3]?.content).toMatch(/^Your answer could not be used: the answer must be one JSON object and nothing else/)
  })

  it("asks the operator when the answer is malformed twice, and never allows", async () => {
    const { fake, review } = await setup()
    fake.script([{ text: verdict("low", "high").replace("low", "tiny") }, { text: "allow" }])
    const result = await review()
    expect(result.outcome).toBe("ask")
    expect(result.verdict).toBeUndefined()
    expect(result.reason).toMatch(/^the reviewer answered twice without a usable verdict \(the answer must be one JSON object/)
    expect(body(fake.requests[1]).messages[3]?.content).toMatch(/risk_level must be "low", "medium" or "high" \(it was "tiny"\)/)
    expect(fake.requests).toHaveLength(2)
  })

  it("treats a tool call as a malformed answer", async () => {
    const { fake, review } = await setup()
    fake.script([{ toolCalls: [{ name: "bash", arguments: { command: "true" } }] }, { text: verdict("medium", "high") }])
    expect(await review()).toMatchObject({ outcome: "allow" })
    expect(body(fake.requests[1]).messages.at(-1)?.content).toMatch(/it called the tool bash; there are no tools here/)
  })

  it("asks when the reviewer does not answer in time", async () => {
    const { fake, review } = await setup(200)
    fake.script([{ delayMs: 5_000, text: verdict("low", "high") }])
    const started = Date.now()
    const result = await review()
    expect(result).toEqual({ outcome: "ask", reason: "the reviewer did not answer within 0.2 s", verdict: undefined })
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it("counts the retry inside the same time limit", async () => {
    const { fake, review } = await setup(400)
    fake.script([{ delayMs: 250, text: "no" }, { delayMs: 250, text: verdict("low", "high") }])
    expect(await review()).toMatchObject({ outcome: "ask", reason: "the reviewer did not answer within 0.4 s" })
  })

  it("asks when the request fails", async () => {
    const { fake, review } = await setup()
    fake.script([{ kind: "error", status: 400, message: "bad model" }])
    const result = await review()
    expect(result.outcome).toBe("ask")
    expect(result.reason).toMatch(/^the reviewer request failed: .*bad model/)
  })

  it("uses the session's current model and the current texts at each review", async () => {
    const fake = await startFakeLlm()
    servers.push(fake)
    const entry = (id: string): ModelEntry => ({
      ref: `local/${id}`,
      id,
      provider: { name: "local", protocol: "openai-chat", baseURL: `${fake.url}/v1`, apiKeyEnv: [], headers: {} },
      capabilities: { contextWindow: 32768, maxOutputTokens: 1024, imageInput: false, reasoning: false },
      listed: true
    })
    const first = entry("one")
    const second = entry("two")
    const activeModel = Providers.fixed([
      { entry: first, client: makeOpenAIChatClient(first, {}) },
      { entry: second, client: makeOpenAIChatClient(second, {}) }
    ])
    let system = "first text"
    const reviewer = makeReviewer({ activeModel, prompts: Effect.sync(() => ({ system, userTemplate: "{{tool_name}}" })) })
    fake.script([{ text: verdict("low", "high") }, { text: verdict("low", "high") }])
    await Effect.runPromise(reviewer.review(request))
    await Effect.runPromise(activeModel.switchTo("local/two", "test"))
    system = "second text"
    await Effect.runPromise(reviewer.review(request))
    expect(fake.requests.map((recorded) => (recorded.body as { model: string }).model)).toEqual(["one", "two"])
    expect(fake.requests.map((recorded) => body(recorded).messages[0]?.content)).toEqual(["first text", "second text"])
  })
})
