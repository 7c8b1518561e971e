/**
 * The turn loop end to end inside one process: the real Chat Completions adapter against the fake
 * LLM server, a real session store in a temp dir, a recording renderer and small test tools.
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { afterEach, describe, expect, it } from "vitest"
import { Conversation } from "../../../src/engine/conversation.ts"
import { Operator } from "../../../src/engine/operator.ts"
import { Renderer, type RendererShape } from "../../../src/engine/renderer.ts"
import { ApprovalPolicy } from "../../../src/approval/approval-policy.ts"
import { MediaStore } from "../../../src/media/media-store.ts"
import { Toolbox } from "../../../src/engine/toolbox.ts"
import { runTurn, type TurnSettings, type UserInput } from "../../../src/engine/turn.ts"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import { Providers } from "../../../src/providers/providers.ts"
import { makeOpenAIChatClient } from "../../../src/providers/openai-chat.ts"
import { makeSessionStore, SessionStore } from "../../../src/session/store.ts"
import { touchesNothing } from "../../support/classification.ts"
import * as p from "../../../src/tools/params.ts"
import { defineTool, everyMode, ToolError, type Tool } from "../../../src/tools/tool.ts"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"
import { tempDir } from "../../support/temp.ts"

const echo = defineTool({
  name: "echo",
  description: "Echoes its text.",
  parameters: p.object({ text: p.string("What to echo") }),
  modes: everyMode,
  classify: touchesNothing,
  run: ({ text }) => Effect.succeed({ text: `echo: ${text}` })
})

const refuse = defineTool({
  name: "refuse",
  description: "Always fails.",
  parameters: p.object({}),
  modes: everyMode,
  classify: touchesNothing,
  run: () => Effect.fail(new ToolError({ message: "refused on purpose" }))
})

const explode = defineTool({
  name: "explode",
  description: "Throws.",
  parameters: p.object({}),
  modes: everyMode,
  classify: touchesNothing,
  run: () => Effect.sync(() => {
    throw new Error("kaboom")
  })
})

const slow = defineTool({
  name: "slow",
  description: "Never finishes.",
  parameters: p.object({}),
  modes: everyMode,
  classify: touchesNothing,
  run: () => Effect.never
})

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const recordingRenderer = (log: Array<string>): RendererShape => ({
  sessionStarted: () => Effect.void,
  textDelta: (text) => Effect.sync(() => log.push(`delta:${text}`)),
  reasoningDelta: () => Effect.void,
  assistantMessage: (message) => Effect.sync(() => log.push(`message:${message.text}`)),
  toolStarted: (call) => Effect.sync(() => log.push(`call:${call.name}`)),
  approval: (event) => Effect.sync(() => log.push(`approval:${event.outcome}:${event.by}`)),
  toolFinished: (result) => Effect.sync(() => log.push(`result:${result.isError ? "error" : "ok"}:${result.text}`)),
  retrying: (info) => Effect.sync(() => log.push(`retry:${info.attempt}`)),
  note: (text) => Effect.sync(() => log.push(`note:${text}`)),
  finished: () => Effect.void,
  failed: (message) => Effect.sync(() => log.push(`failed:${message}`))
})

const setup = async (tools: ReadonlyArray<Tool> = [echo, refuse, explode, slow], confirm = false, imageInput = false) => {
  const fake = await startFakeLlm()
  servers.push(fake)
  const home = await tempDir()
  const store = makeSessionStore(path.join(home, "sessions"))
  const document = { ...store.create({ workspace: home, model: "local/m", mode: "work", approval: "default" }), system: "You are a test." }
  const model: ModelEntry = {
    ref: "local/m",
    id: "m",
    provider: { name: "local", protocol: "openai-chat", baseURL: `${fake.url}/v1`, apiKeyEnv: [], headers: {} },
    capabilities: { contextWindow: 32768, maxOutputTokens: 1024, imageInput, reasoning: false },
    listed: true
  }
  const mediaDir = path.join(home, "media")
  const media = MediaStore.layer(mediaDir)
  const log: Array<string> = []
  const storeLayer = Layer.succeed(SessionStore, store)
  const layer = Layer.mergeAll(
    Layer.succeed(Providers, Providers.fixed([{ entry: model, client: makeOpenAIChatClient(model, {}) }])),
    Layer.succeed(Renderer, recordingRenderer(log)),
    Layer.succeed(Operator, {
      confirm: () => Effect.succeed(confirm),
      approve: () => Effect.succeed({ _tag: "NoOperator" as const }),
      askQuestions: () => Effect.succeed({ _tag: "NoOperator" as const })
    }),
    Toolbox.layerTest(tools, document.id).pipe(Layer.provideMerge(ApprovalPolicy.layerTest(home))),
    storeLayer,
    media,
    Layer.scoped(Conversation, Conversation.make(document)).pipe(Layer.provide(storeLayer))
  )
  const settings: TurnSettings = { maxSteps: 5 }
  const turn = (input: string | UserInput) => runTurn(input, settings).pipe(Effect.provide(layer))
  const saved = () => Effect.runPromise(store.load(document.id))
  return { fake, log, turn, saved, settings, layer, mediaDir }
}

describe("runTurn", () => {
  it("streams an answer and saves the exchange", async () => {
    const { fake, log, turn, saved } = await setup()
    fake.script([{ text: ["Hel", "lo"], usage: { inputTokens: 10, outputTokens: 2 } }])
    const outcome = await Effect.runPromise(turn("hi"))
    expect(outcome).toMatchObject({ _tag: "Answered", steps: 1, usage: { inputTokens: 10, outputTokens: 2 } })
    expect(log).toEqual(["delta:Hel", "delta:lo", "message:Hello"])
    const doc = await saved()
    expect(doc.items.map((item) => item._tag)).toEqual(["user", "assistant"])
    expect(doc.usage).toMatchObject({ inputTokens: 10, outputTokens: 2 })
    expect(doc.system).toBe("You are a test.")
  })

  it("runs tool calls in order and feeds every result back", async () => {
    const { fake, log, turn, saved } = await setup()
    fake.script([
      {
        toolCalls: [
          { id: "c1", name: "echo", arguments: { text: "one" } },
          { id: "c2", name: "refuse", arguments: {} },
          { id: "c3", name: "explode", arguments: {} },
          { id: "c4", name: "nope", arguments: {} },
          { id: "c5", name: "echo", arguments: { text: 5 } },
          { id: "c6", name: "echo", arguments: "{not json" }
        ]
      },
      { text: "done" }
    ])
    const outcome = await Effect.runPromise(turn("go"))
    expect(outcome._tag).toBe("Answered")
    expect(log.filter((line) => line.startsWith("result:"))).toEqual([
      "result:ok:echo: one",
      "result:error:refused on purpose",
      "result:error:explode failed unexpectedly: kaboom",
      "result:error:there is no tool named 'nope' in work mode; the available tools are: echo, refuse, explode, slow",
      "result:error:echo: invalid arguments: text: expected string, got 5",
      "result:error:echo: the arguments were not valid JSON; send one JSON object matching the tool's schema"
    ])
    const second = fake.requests[1]?.body as { messages: Array<{ role: string; tool_call_id?: string; content: unknown }> }
    const toolMessages = second.messages.filter((message) => message.role === "tool")
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(["c1", "c2", "c3", "c4", "c5", "c6"])
    expect(toolMessages[0]?.content).toBe("echo: one")
    const doc = await saved()
    expect(doc.items.map((item) => item._tag)).toEqual(["user", "assistant", ...Array(6).fill("tool_result"), "assistant"])
  })

  it("stops at the step limit with a note when nobody allows more", async () => {
    const { fake, log, turn, saved, settings } = await setup()
    fake.script(Array.from({ length: settings.maxSteps }, () => ({ toolCalls: [{ name: "echo", arguments: { text: "again" } }] })))
    const outcome = await Effect.runPromise(turn("loop"))
    expect(outcome._tag).toBe("StepLimit")
    expect(fake.requests).toHaveLength(settings.maxSteps)
    expect(log.at(-1)).toMatch(/^note:Turn stopped after 5 model requests/)
    expect((await saved()).items.at(-1)?._tag).toBe("note")
  })

  it("goes on past the step limit when the operator agrees", async () => {
    const { fake, turn } = await setup(undefined, true)
    fake.script([
      ...Array.from({ length: 6 }, () => ({ toolCalls: [{ name: "echo", arguments: { text: "again" } }] })),
      { text: "finally" }
    ])
    const outcome = await Effect.runPromise(turn("loop"))
    expect(outcome).toMatchObject({ _tag: "Answered", steps: 7 })
  })

  it("keeps the partial answer when the stream is cut, and fails", async () => {
    const { fake, turn, saved } = await setup()
    fake.script([{ text: ["partial ", "answer ", "never ", "finished"], cutAfterChunks: 3 }])
    const exit = await Effect.runPromiseExit(turn("hi"))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(JSON.stringify(exit)).toMatch(/stream_cut/)
    const last = (await saved()).items.at(-1)
    expect(last).toMatchObject({ _tag: "assistant", incomplete: true })
    expect(last?._tag === "assistant" && last.text.startsWith("partial ")).toBe(true)
  })

  it("answers every call with a cancelled result when interrupted during a tool", async () => {
    const { fake, turn, saved, log } = await setup()
    fake.script([{ toolCalls: [{ id: "a", name: "echo", arguments: { text: "x" } }, { id: "b", name: "slow", arguments: {} }, { id: "c", name: "echo", arguments: { text: "y" } }] }])
    const fiber = Effect.runFork(turn("go"))
    while (!log.includes("call:slow")) await new Promise((resolve) => setTimeout(resolve, 5))
    await Effect.runPromise(Fiber.interrupt(fiber))
    const results = (await saved()).items.filter((item) => item._tag === "tool_result")
    expect(results.map((item) => [item.callId, item.isError])).toEqual([["a", false], ["b", true], ["c", true]])
  })
})

describe("runTurn interruption mid-stream", () => {
  it("aborts the request and keeps the text that arrived, marked cancelled", async () => {
    const { fake, turn, saved, log } = await setup()
    fake.script([{ text: ["first ", "second ", "third"], chunkDelayMs: 400 }])
    const fiber = Effect.runFork(turn("hi"))
    while (!log.some((line) => line.startsWith("delta:"))) await new Promise((resolve) => setTimeout(resolve, 5))
    await Effect.runPromise(Fiber.interrupt(fiber))
    const closed = await fake.requests[0]?.closed
    expect(closed?.beforeReplyFinished).toBe(true)
    const last = (await saved()).items.at(-1)
    expect(last).toMatchObject({ _tag: "assistant", incomplete: true, finishReason: "cancelled" })
  })
})
