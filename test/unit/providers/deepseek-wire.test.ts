import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"

let fake: FakeLlm
beforeEach(async () => {
  fake = await startFakeLlm()
})
afterEach(() => fake.close())

const post = (body: object) =>
  fetch(`${fake.url}/deepseek/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })

const chunks = (text: string): ReadonlyArray<Record<string, unknown>> => {
  const frames = text.split("\n\n").filter((frame) => frame !== "")
  expect(frames.at(-1)).toBe("data: [DONE]")
  return frames.slice(0, -1).map((frame) => JSON.parse(frame.slice("data: ".length)) as Record<string, unknown>)
}

const choiceOf = (chunk: Record<string, unknown> | undefined) => (chunk?.["choices"] as ReadonlyArray<Record<string, unknown>>)[0]

describe("fake LLM server: DeepSeek wire", () => {
  it("streams reasoning_content, then content, and ends with finish reason and DeepSeek usage in one chunk", async () => {
    fake.script([{ reasoning: ["a"], text: ["b"], usage: { inputTokens: 100, outputTokens: 9, cachedInputTokens: 64, reasoningTokens: 4 } }])
    const response = await post({ model: "deepseek-reasoner", messages: [], stream: true })
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    const all = chunks(await response.text())
    expect(all.map((chunk) => choiceOf(chunk)?.["delta"])).toEqual([
      { role: "assistant", content: null, reasoning_content: "" },
      { content: null, reasoning_content: "a" },
      { content: "b", reasoning_content: null },
      { content: "", reasoning_content: null }
    ])
    expect(all.slice(0, -1).some((chunk) => "usage" in chunk)).toBe(false)
    expect(choiceOf(all.at(-1))?.["finish_reason"]).toBe("stop")
    expect(all.at(-1)?.["usage"]).toEqual({
      prompt_tokens: 100,
      completion_tokens: 9,
      total_tokens: 109,
      prompt_tokens_details: { cached_tokens: 64 },
      completion_tokens_details: { reasoning_tokens: 4 },
      prompt_cache_hit_tokens: 64,
      prompt_cache_miss_tokens: 36
    })
  })

  it("sends DeepSeek's error bodies, 402 included, and leaves the bare /chat/completions to OpenAI", async () => {
    fake.script([{ kind: "error", status: 402 }, { text: "openai" }])
    const poor = await post({ model: "deepseek-chat", messages: [] })
    expect(poor.status).toBe(402)
    expect(await poor.json()).toEqual({
      error: { message: "Insufficient Balance", type: "unknown_error", param: null, code: "invalid_request_error" }
    })
    await fetch(`${fake.url}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) })
    expect(fake.requests.map((request) => request.protocol)).toEqual(["deepseek", "openai-chat"])
  })
})
