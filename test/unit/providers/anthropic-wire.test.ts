import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"

let fake: FakeLlm
beforeEach(async () => {
  fake = await startFakeLlm()
})
afterEach(() => fake.close())

const post = (body: object) =>
  fetch(`${fake.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

/** Each SSE event as its name and parsed data. */
const events = (text: string) =>
  text
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      const [eventLine, dataLine, ...rest] = frame.split("\n")
      expect(rest).toEqual([])
      expect(eventLine).toMatch(/^event: [a-z_]+$/)
      expect(dataLine).toMatch(/^data: /)
      return { event: eventLine?.slice("event: ".length), data: JSON.parse(dataLine?.slice("data: ".length) ?? "") as unknown }
    })

describe("fake LLM server: Anthropic Messages wire", () => {
  it("streams named events in the documented order, each data carrying its own type", async () => {
    fake.script([
      {
        reasoning: ["hm"],
        text: ["Hi"],
        toolCalls: [{ id: "toolu_1", name: "ls", arguments: { path: "." }, argumentChunks: 2 }],
        usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 4 }
      }
    ])
    const response = await post({ model: "claude-x", max_tokens: 100, stream: true, messages: [] })
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    const stream = events(await response.text())
    expect(stream.map(({ event }) => event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop"
    ])
    for (const { event, data } of stream) expect(data).toMatchObject({ type: event })
    expect(stream[0]?.data).toMatchObject({
      message: {
        id: "msg_fake000001",
        type: "message",
        role: "assistant",
        model: "claude-x",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 4, output_tokens: 1 }
      }
    })
    expect(stream[2]?.data).toEqual({
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" }
    })
    expect(stream[4]?.data).toMatchObject({
      index: 0,
      delta: { type: "signature_delta", signature: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) }
    })
    expect(stream[9]?.data).toEqual({
      type: "content_block_start",
      index: 2,
      content_block: { type: "tool_use", id: "toolu_1", name: "ls", input: {} }
    })
    expect(stream.slice(10, 13).map(({ data }) => data)).toEqual([
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: "" } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"path' } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '":"."}' } }
    ])
    expect(stream[14]?.data).toMatchObject({
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 6, cache_read_input_tokens: 4, output_tokens: 5 }
    })
  })

  it("answers non-streaming requests with a message", async () => {
    fake.script([{ text: "Hello", usage: { inputTokens: 3, outputTokens: 1 } }])
    const body = await (await post({ model: "claude-x", max_tokens: 100, messages: [] })).json()
    expect(body).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "Hello" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 3, output_tokens: 1 }
    })
  })

  it("sends errors in the API's shape", async () => {
    fake.script([{ kind: "error", status: 529 }])
    const response = await post({ model: "claude-x", max_tokens: 100, stream: true, messages: [] })
    expect(response.status).toBe(529)
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
      request_id: "req_fake1"
    })
  })
})
