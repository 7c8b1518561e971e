import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { field } from "../../support/fake-llm/json.ts"
import { noReplyLeftMessage, startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"

let fake: FakeLlm
beforeEach(async () => {
  fake = await startFakeLlm()
})
afterEach(() => fake.close())

const post = (path: string, body: object) =>
  fetch(`${fake.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

describe("fake LLM server", () => {
  it("streams OpenAI chat chunks byte for byte", async () => {
    fake.script([{ text: ["Hi"], usage: { inputTokens: 3, outputTokens: 1 } }])
    const response = await post("/chat/completions", { model: "m", stream: true, stream_options: { include_usage: true } })
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    const text = await response.text()
    const frames = text.split("\n\n").filter((frame) => frame !== "")
    expect(frames).toHaveLength(5)
    expect(frames.at(-1)).toBe("data: [DONE]")
    const created = Math.floor((fake.requests[0]?.receivedAt ?? 0) / 1000)
    expect(frames[0]).toBe(
      `data: {"id":"chatcmpl-fake000001","object":"chat.completion.chunk","created":${created},"model":"m",` +
        `"service_tier":"default","system_fingerprint":"fp_fake","choices":[{"index":0,"delta":{"role":"assistant",` +
        `"content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`
    )
    expect(JSON.parse(frames[3]?.slice("data: ".length) ?? "")).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }
    })
  })

  it("answers non-streaming requests with a chat.completion", async () => {
    fake.script([{ toolCalls: [{ id: "call_1", name: "ls", arguments: { path: "." } }] }])
    const body = await (await post("/v1/chat/completions", { model: "m" })).json()
    expect(body).toMatchObject({
      object: "chat.completion",
      choices: [
        {
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }]
          },
          finish_reason: "tool_calls"
        }
      ]
    })
  })

  it("computes replies from the request and records what arrived", async () => {
    fake.script([(request) => ({ text: `you sent ${String(field(request.body, "model"))}` })])
    const waiting = fake.waitForRequest(1)
    const body = await (await post("/v1/chat/completions", { model: "echo" })).json()
    expect(body).toMatchObject({ choices: [{ message: { content: "you sent echo" } }] })
    expect(await waiting).toMatchObject({ index: 1, method: "POST", path: "/v1/chat/completions", protocol: "openai-chat" })
  })

  it("answers 500 in the protocol's error shape once the script is exhausted", async () => {
    const response = await post("/v1/chat/completions", { model: "m", stream: true })
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({
      error: { message: noReplyLeftMessage, type: "server_error", param: null, code: null }
    })
  })

  it("answers 404 for routes no protocol serves, without consuming a reply", async () => {
    fake.script([{ text: "kept" }])
    expect((await post("/v1/unknown", {})).status).toBe(404)
    expect(fake.remainingReplies()).toBe(1)
  })
})
