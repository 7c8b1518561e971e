/**
 * `--output-schema` in each adapter's request body (pure encoders), and the Anthropic answer tool's
 * call coming back as the answer's text.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { describe, expect, it } from "vitest"
import { answerToolAsText } from "../../../src/providers/anthropic-answer-tool.ts"
import { anthropicRequestBody } from "../../../src/providers/anthropic-encode.ts"
import { deepseekRequestBody } from "../../../src/providers/deepseek-encode.ts"
import { geminiRequest } from "../../../src/providers/gemini-encode.ts"
import type { ModelEvent, OutputSchema, ToolDefinition } from "../../../src/providers/model-client.ts"
import { unwrapAnswerText } from "../../../src/providers/object-root-schema.ts"
import { ollamaRequestBody } from "../../../src/providers/ollama-encode.ts"
import { chatRequestBody } from "../../../src/providers/openai-chat-encode.ts"
import { responsesRequestBody } from "../../../src/providers/openai-responses-encode.ts"
import { localModel } from "../../support/model-entry.ts"
import { requestFor } from "./fixtures.ts"

const objectSchema: OutputSchema = { name: "final_answer", schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } }
const arraySchema: OutputSchema = { name: "final_answer", schema: { type: "array", items: { type: "string" } } }
const glob: ToolDefinition = { name: "glob", description: "find files", inputSchema: { type: "object", properties: { pattern: { type: "string" } } } }
const model = localModel()
const thinkingModel = { ...model, capabilities: { ...model.capabilities, reasoning: true, maxOutputTokens: 16_000 } }
const withSchema = (tools: ReadonlyArray<ToolDefinition>, schema = objectSchema, entry = model) => requestFor(entry, { tools, outputSchema: schema })

describe("the output schema on each wire", () => {
  it("is absent from every body without --output-schema", () => {
    const plain = requestFor(model, { tools: [glob] })
    expect(chatRequestBody(plain)).not.toHaveProperty("response_format")
    expect(responsesRequestBody(plain)).not.toHaveProperty("text")
    expect(deepseekRequestBody(plain)).not.toHaveProperty("response_format")
    expect(geminiRequest(plain).config).not.toHaveProperty("responseJsonSchema")
    expect(ollamaRequestBody(plain)).not.toHaveProperty("format")
    expect(anthropicRequestBody(plain)).not.toHaveProperty("tool_choice")
  })

  it("Chat Completions: response_format json_schema, not strict, next to the tools", () => {
    const body = chatRequestBody(withSchema([glob]))
    expect(body.response_format).toEqual({ type: "json_schema", json_schema: { name: "final_answer", schema: objectSchema.schema, strict: false } })
    expect(body.tools).toHaveLength(1)
  })

  it("Responses: text.format json_schema, not strict", () => {
    expect(responsesRequestBody(withSchema([glob])).text).toEqual({ format: { type: "json_schema", name: "final_answer", schema: objectSchema.schema, strict: false } })
  })

  it("DeepSeek: JSON mode only (no json_schema on its API)", () => {
    expect(deepseekRequestBody(withSchema([glob])).response_format).toEqual({ type: "json_object" })
  })

  it("Gemini: responseMimeType and responseJsonSchema only on a request without tools (Gemini 2.x refuses them next to function declarations)", () => {
    const withTools = geminiRequest(withSchema([glob])).config
    expect(withTools).not.toHaveProperty("responseMimeType")
    expect(withTools).not.toHaveProperty("responseJsonSchema")
    expect(withTools?.tools).toHaveLength(1)
    const { config } = geminiRequest(withSchema([]))
    expect(config?.responseMimeType).toBe("application/json")
    expect(config?.responseJsonSchema).toEqual(objectSchema.schema)
  })

  it("Ollama: format only on a request without tools (format would override tool calling)", () => {
    expect(ollamaRequestBody(withSchema([glob]))).not.toHaveProperty("format")
    expect(ollamaRequestBody(withSchema([])).format).toEqual(objectSchema.schema)
  })

  const choices = [
    ["with other tools: any tool, so they still work", [glob], model, { type: "any" }],
    ["without other tools (the retry): the answer tool itself", [], model, { type: "tool", name: "final_answer" }],
    ["with thinking on (a forced choice is refused then): auto", [glob], thinkingModel, { type: "auto" }]
  ] as const
  it.each(choices)("Anthropic: the answer tool after the others, tool_choice %s", (_name, tools, entry, choice) => {
    const body = anthropicRequestBody(withSchema(tools, objectSchema, entry))
    expect(body.tools?.map((tool) => ("name" in tool ? tool.name : undefined))).toEqual([...tools.map((tool) => tool.name), "final_answer"])
    expect(body.tool_choice).toEqual(choice)
  })

  it("Anthropic: a schema that is not an object is wrapped as the tool input's `answer`", () => {
    const tool = anthropicRequestBody(withSchema([], arraySchema)).tools?.at(-1)
    expect(tool).toMatchObject({ name: "final_answer", input_schema: { type: "object", properties: { answer: arraySchema.schema }, required: ["answer"] } })
  })
})

describe("a schema whose root is not an object, on the wires that want one (Anthropic, Chat Completions, Responses)", () => {
  const withDefs: OutputSchema = {
    name: "final_answer",
    schema: { $schema: "https://json-schema.org/draft/2020-12/schema", $id: "https://example.com/list", type: "array", items: { $ref: "#/$defs/item" }, $defs: { item: { type: "string" } } }
  }
  const wrapper = {
    type: "object",
    properties: { answer: { type: "array", items: { $ref: "#/$defs/item" } } },
    required: ["answer"],
    additionalProperties: false,
    $defs: { item: { type: "string" } }
  }

  it("is wrapped as the `answer` of an object, its $defs moved to the wrapper's root (where #/$defs/… resolves), $schema and $id dropped", () => {
    expect(anthropicRequestBody(withSchema([], withDefs)).tools?.at(-1)).toMatchObject({ name: "final_answer", input_schema: wrapper })
    expect(chatRequestBody(withSchema([glob], withDefs)).response_format).toEqual({ type: "json_schema", json_schema: { name: "final_answer", schema: wrapper, strict: false } })
    expect(responsesRequestBody(withSchema([glob], withDefs)).text).toEqual({ format: { type: "json_schema", name: "final_answer", schema: wrapper, strict: false } })
  })

  it("draft-07 `definitions` move the same way; an object schema goes as it is", () => {
    const draft7: OutputSchema = { name: "final_answer", schema: { type: "array", items: { $ref: "#/definitions/x" }, definitions: { x: { const: "a" } } } }
    expect(chatRequestBody(withSchema([], draft7)).response_format).toMatchObject({
      json_schema: { schema: { definitions: { x: { const: "a" } }, properties: { answer: { type: "array", items: { $ref: "#/definitions/x" } } } } }
    })
    expect(chatRequestBody(withSchema([], objectSchema)).response_format).toMatchObject({ json_schema: { schema: objectSchema.schema } })
  })

  it("the answer comes out of the wrapper in the streamed text (Chat Completions, Responses); other text goes on as it came", () => {
    const unwrap = (schema: OutputSchema, events: ReadonlyArray<ModelEvent>) =>
      Chunk.toReadonlyArray(Effect.runSync(Stream.runCollect(unwrapAnswerText(schema)(Stream.fromIterable(events)))))
    const finish: ModelEvent = { type: "finish", reason: "stop" }
    expect(unwrap(withDefs, [{ type: "text_delta", text: '{"answer":' }, { type: "text_delta", text: ' ["a"]}' }, finish])).toEqual([{ type: "text_delta", text: '["a"]' }, finish])
    expect(unwrap(withDefs, [{ type: "text_delta", text: '["a"]' }])).toEqual([{ type: "text_delta", text: '["a"]' }])
    expect(unwrap(withDefs, [{ type: "text_delta", text: "not json" }, finish])).toEqual([{ type: "text_delta", text: "not json" }, finish])
    const objectText: ReadonlyArray<ModelEvent> = [{ type: "text_delta", text: '{"answer":1}' }, finish]
    expect(unwrap(objectSchema, objectText)).toEqual(objectText)
  })
})

const mapped = (schema: OutputSchema, events: ReadonlyArray<ModelEvent>) =>
  Chunk.toReadonlyArray(Effect.runSync(Stream.runCollect(answerToolAsText(schema)(Stream.fromIterable(events)))))

describe("the Anthropic answer tool's call", () => {
  it("comes back as the answer's text, and the response finishes as a plain answer", () => {
    expect(mapped(objectSchema, [{ type: "tool_call", id: "t1", name: "final_answer", arguments: { n: 1 } }, { type: "finish", reason: "tool_calls" }])).toEqual([
      { type: "text_delta", text: '{"n":1}' },
      { type: "finish", reason: "stop" }
    ])
  })

  it("unwraps a wrapped answer, and passes arguments that were not JSON on as they came (the validator names them)", () => {
    expect(mapped(arraySchema, [{ type: "tool_call", id: "t1", name: "final_answer", arguments: { answer: ["a"] } }])).toEqual([{ type: "text_delta", text: '["a"]' }])
    expect(mapped(objectSchema, [{ type: "tool_call", id: "t1", name: "final_answer", arguments: "{n:" }])).toEqual([{ type: "text_delta", text: "{n:" }])
  })

  it("leaves other tool calls alone, and their finish reason", () => {
    const events: ReadonlyArray<ModelEvent> = [{ type: "tool_call", id: "t1", name: "glob", arguments: {} }, { type: "finish", reason: "tool_calls" }]
    expect(mapped(objectSchema, events)).toEqual(events)
  })

  it("drops text written before the answer call (thinking on, tool_choice auto): the answer is the call's input only", () => {
    const events: ReadonlyArray<ModelEvent> = [
      { type: "reasoning_delta", text: "the count" },
      { type: "reasoning_end" },
      { type: "text_delta", text: "Here is my answer." },
      { type: "tool_call", id: "t1", name: "final_answer", arguments: { n: 1 } },
      { type: "finish", reason: "tool_calls" }
    ]
    expect(mapped(objectSchema, events)).toEqual([
      { type: "reasoning_delta", text: "the count" },
      { type: "reasoning_end" },
      { type: "text_delta", text: '{"n":1}' },
      { type: "finish", reason: "stop" }
    ])
  })

  it("releases held text when the answer tool is never called: at the finish, or at the end of a response without one", () => {
    const text: ModelEvent = { type: "text_delta", text: '{"n":1}' }
    const usage: ModelEvent = { type: "usage", usage: { inputTokens: 1, outputTokens: 1 } }
    expect(mapped(objectSchema, [text, usage, { type: "finish", reason: "stop" }])).toEqual([usage, text, { type: "finish", reason: "stop" }])
    expect(mapped(objectSchema, [text, { type: "tool_call", id: "t1", name: "glob", arguments: {} }])).toEqual([{ type: "tool_call", id: "t1", name: "glob", arguments: {} }, text])
  })
})
