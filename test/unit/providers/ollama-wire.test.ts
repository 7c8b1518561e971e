import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"

let fake: FakeLlm
beforeEach(async () => {
  fake = await startFakeLlm()
})
afterEach(() => fake.close())

const post = (body: object) =>
  fetch(`${fake.url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

describe("fake LLM server: Ollama chat wire", () => {
  it("streams one JSON object a line, thinking, text, whole tool calls, then the done object", async () => {
    fake.script([
      {
        reasoning: ["hm"],
        text: ["Hi"],
        toolCalls: [{ id: "call_x", name: "ls", arguments: { path: "." } }, { name: "pwd", arguments: {} }],
        usage: { inputTokens: 12, outputTokens: 5 }
      }
    ])
    const response = await post({ model: "qwen3:8b", messages: [], stream: true })
    expect(response.headers.get("content-type")).toBe("application/x-ndjson")
    const text = await response.text()
    expect(text.endsWith("}\n")).toBe(true)
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.map((line) => line["message"])).toEqual([
      { role: "assistant", content: "", thinking: "hm" },
      { role: "assistant", content: "Hi" },
      { role: "assistant", content: "", tool_calls: [{ id: "call_x", function: { index: 0, name: "ls", arguments: { path: "." } } }] },
      { role: "assistant", content: "", tool_calls: [{ function: { index: 1, name: "pwd", arguments: {} } }] },
      { role: "assistant", content: "" }
    ])
    expect(lines.slice(0, -1).every((line) => line["done"] === false && line["model"] === "qwen3:8b")).toBe(true)
    expect(lines.at(-1)).toMatchObject({ done: true, done_reason: "stop", prompt_eval_count: 12, eval_count: 5 })
    expect(Object.keys(lines.at(-1) ?? {})).toEqual([
      "model",
      "created_at",
      "message",
      "done",
      "done_reason",
      "total_duration",
      "load_duration",
      "prompt_eval_count",
      "prompt_eval_duration",
      "eval_count",
      "eval_duration"
    ])
  })

  it("answers `stream: false` with one document and errors as {error}", async () => {
    fake.script([{ text: "ok", finishReason: "length" }, { kind: "error", status: 404 }])
    expect(await (await post({ model: "m", messages: [], stream: false })).json()).toMatchObject({
      message: { role: "assistant", content: "ok" },
      done: true,
      done_reason: "length"
    })
    const missing = await post({ model: "llama9", messages: [] })
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ error: 'model "llama9" not found, try pulling it first' })
  })
})
