import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"

let fake: FakeLlm
beforeEach(async () => {
  fake = await startFakeLlm()
})
afterEach(async () => {
  await fake.close()
})

const post = (body: object) =>
  fetch(`${fake.url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

interface Frame {
  readonly event: string
  readonly data: { readonly type: string; readonly sequence_number: number } & Record<string, unknown>
}

const frames = (text: string): ReadonlyArray<Frame> =>
  text
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      const [eventLine = "", dataLine = "", ...rest] = frame.split("\n")
      expect(rest).toEqual([])
      expect(eventLine.startsWith("event: ")).toBe(true)
      expect(dataLine.startsWith("data: ")).toBe(true)
      return { event: eventLine.slice("event: ".length), data: JSON.parse(dataLine.slice("data: ".length)) as Frame["data"] }
    })

describe("fake LLM server: the Responses wire", () => {
  it("streams named SSE events in order, numbered, ending with response.completed and no [DONE]", async () => {
    fake.script([
      { reasoning: ["Hm."], text: ["Hi", "!"], toolCalls: [{ id: "call_1", name: "ls", arguments: { path: "." }, argumentChunks: 2 }] }
    ])
    const response = await post({ model: "gpt-test", input: "hi", stream: true, include: ["reasoning.encrypted_content"] })
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    const events = frames(await response.text())
    for (const { event, data } of events) expect(data.type).toBe(event)
    expect(events.map(({ data }) => data.sequence_number)).toEqual(events.map((_, index) => index))
    expect(events.map(({ event }) => event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed"
    ])
    const completed = events.at(-1)?.data["response"] as Record<string, unknown>
    expect(completed).toMatchObject({
      object: "response",
      status: "completed",
      output: [
        { id: "rs_fake000001x0", type: "reasoning", encrypted_content: "gAAAAfake-1-0", summary: [{ type: "summary_text", text: "Hm." }] },
        { id: "msg_fake000001x1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Hi!" }] },
        { id: "fc_fake000001x2", type: "function_call", status: "completed", call_id: "call_1", name: "ls", arguments: '{"path":"."}' }
      ],
      usage: { input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } }
    })
  })

  it("ends a response cut by max_output_tokens with response.incomplete", async () => {
    fake.script([{ text: "Hi", finishReason: "length" }])
    const events = frames(await (await post({ model: "gpt-test", input: "hi", stream: true })).text())
    expect(events.at(-1)?.data).toMatchObject({
      type: "response.incomplete",
      response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }
    })
  })

  it("answers a request without stream with the whole response object", async () => {
    fake.script([{ text: "Hi" }])
    const body = (await (await post({ model: "gpt-test", input: "hi" })).json()) as Record<string, unknown>
    expect(body).toMatchObject({ object: "response", status: "completed", model: "gpt-test", output: [{ type: "message" }] })
  })

  it("answers errors in OpenAI's error envelope", async () => {
    fake.script([{ kind: "error", status: 400, code: "context_length_exceeded" }])
    const response = await post({ model: "gpt-test", input: "hi", stream: true })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: {
        message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
        type: "invalid_request_error",
        param: "input",
        code: "context_length_exceeded"
      }
    })
  })
})
