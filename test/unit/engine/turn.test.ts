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
import { attachImageBytes, reserveImageNumber } from "../../../src/engine/attach-image.ts"
import { Conversation } from "../../../src/engine/conversation.ts"
import { Operator } from "../../../src/engine/operator.ts"
import { Renderer, type RendererShape } from "../../../src/engine/renderer.ts"
import { ApprovalPolicy } from "../../../src/approval/approval-policy.ts"
import { MediaStore } from "../../../src/media/media-store.ts"
import { Toolbox } from "../../../src/engine/toolbox.ts"
import { Redactor } from "../../../src/secrets/redactor.ts"
import { runTurn, type TurnSettings, type UserInput } from "../../../src/engine/turn.ts"
import { PROGRESS_INTERVAL_MS } from "../../../src/engine/executor.ts"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import { Providers } from "../../../src/providers/providers.ts"
import { makeOpenAIChatClient } from "../../../src/providers/openai-chat.ts"
import { makeSessionStore, SessionStore } from "../../../src/session/store.ts"
import { touchesNothing } from "../../support/classification.ts"
import * as p from "../../../src/tools/params.ts"
import { defineTool, everyMode, ToolError, type Tool } from "../../../src/tools/tool.ts"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"
import { makePng } from "../../support/images.ts"
import { tempDir } from "../../support/temp.ts"
import { PluginLoader } from "../../../src/plugins/plugin-loader.ts"
import type { ImageRef } from "../../../src/session/items.ts"

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

/** Reports 1..count at once, then (if `wait`) waits: the executor passes on the first and, after its interval, the last. */
const reporter = defineTool({
  name: "reporter",
  description: "Reports progress.",
  parameters: p.object({ count: p.integer("How many reports"), wait: p.integer("Milliseconds to wait after them") }),
  modes: everyMode,
  classify: touchesNothing,
  run: ({ count, wait }, context) =>
    Effect.gen(function* () {
      for (let step = 1; step <= count; step++) context.progress?.({ progress: step, total: count })
      if (wait > 0) yield* Effect.sleep(`${wait} millis`)
      return { text: "reported" }
    })
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
  toolProgress: (event) => Effect.sync(() => log.push(`progress:${event.toolName}:${event.progress ?? ""}/${event.total ?? ""}`)),
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
    Toolbox.layerTest(tools, document.id).pipe(Layer.provideMerge(Layer.merge(ApprovalPolicy.layerTest(home), Redactor.layerTest()))),
    storeLayer,
    media,
    PluginLoader.layerTest(),
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

  it("passes a tool's progress to the renderer between its call and its result, throttled: the first at once, the latest after the interval, none after the result", async () => {
    const { fake, log, turn } = await setup([reporter])
    fake.script([
      {
        toolCalls: [
          { id: "c1", name: "reporter", arguments: { count: 1000, wait: PROGRESS_INTERVAL_MS + 300 } },
          { id: "c2", name: "reporter", arguments: { count: 2, wait: 0 } }
        ]
      },
      { text: "done" }
    ])
    expect((await Effect.runPromise(turn("go")))._tag).toBe("Answered")
    // The second call ended before its held report's time came: it is dropped, not shown late.
    await new Promise((resolve) => setTimeout(resolve, PROGRESS_INTERVAL_MS + 100))
    expect(log.filter((line) => /^(call|progress|result):/.test(line))).toEqual([
      "call:reporter",
      "progress:reporter:1/1000",
      "progress:reporter:1000/1000",
      "result:ok:reported",
      "call:reporter",
      "progress:reporter:1/2",
      "result:ok:reported"
    ])
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

describe("runTurn with images", () => {
  const png = makePng(12, 10, { noise: true, seed: 3 })
  const base64 = png.toString("base64")
  /** Set by each test before the model calls `snap`: the image the tool returns. */
  let snapped: ImageRef | undefined
  const snap = defineTool({
    name: "snap",
    description: "Returns a picture.",
    parameters: p.object({}),
    modes: everyMode,
    classify: touchesNothing,
    run: () => Effect.succeed({ text: `${snapped?.marker ?? ""} the picture`, images: snapped === undefined ? [] : [snapped] })
  })

  const imageSetup = async (imageInput = true) => {
    const context = await setup([snap], false, imageInput)
    const attach = (number: number) => Effect.runPromise(attachImageBytes(png, "shot.png", number).pipe(Effect.provide(context.layer)))
    const bodyOf = (index: number) => JSON.stringify(context.fake.requests[index]?.body)
    return { ...context, attach, bodyOf }
  }

  it("sends an attached image with the user message, and keeps only its reference", async () => {
    const { fake, turn, saved, attach, bodyOf } = await imageSetup()
    const ref = await attach(1)
    fake.script([{ text: "A picture." }])
    await Effect.runPromise(turn({ text: "look [Image #1]", images: [ref] }))
    expect(bodyOf(0)).toContain(`data:image/png;base64,${base64}`)
    const user = (await saved()).items.find((item) => item._tag === "user")
    expect(user).toMatchObject({ text: "look [Image #1]", images: [{ sha256: ref.sha256, mime: "image/png", marker: "[Image #1]" }] })
    expect(JSON.stringify(await saved())).not.toContain(base64.slice(0, 40))
  })

  it("carries a tool result's image to the next request (a user part after the tool message on Chat Completions)", async () => {
    const { fake, turn, attach, bodyOf } = await imageSetup()
    snapped = await attach(1)
    fake.script([{ toolCalls: [{ id: "s", name: "snap", arguments: {} }] }, { text: "Seen." }])
    await Effect.runPromise(turn("take a picture"))
    const messages = (fake.requests[1]?.body as { messages: Array<{ role: string; content: unknown }> }).messages
    const toolAt = messages.findIndex((message) => message.role === "tool")
    expect(JSON.stringify(messages[toolAt])).not.toContain(base64)
    expect(messages[toolAt + 1]?.role).toBe("user")
    expect(JSON.stringify(messages[toolAt + 1])).toContain(base64)
    expect(bodyOf(0)).not.toContain(base64)
  })

  it("refuses images for a model that takes none, before storing or sending anything", async () => {
    const { fake, layer, settings } = await imageSetup(false)
    const ref = { sha256: "0".repeat(64), mime: "image/png", marker: "[Image #1]" }
    const { exit, items } = await Effect.runPromise(
      Effect.gen(function* () {
        const exit = yield* Effect.exit(runTurn({ text: "look [Image #1]", images: [ref] }, settings))
        return { exit, items: (yield* (yield* Conversation).document).items }
      }).pipe(Effect.provide(layer))
    )
    expect(JSON.stringify(exit)).toContain("does not take images")
    expect(fake.requests).toHaveLength(0)
    expect(items).toHaveLength(0)
  })

  it("sends a text-only model the markers of earlier images, never their bytes", async () => {
    const { fake, layer, settings, bodyOf } = await imageSetup(false)
    fake.script([{ text: "Fine." }])
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* (yield* Conversation).append(
          { _tag: "user", id: "u0", text: "earlier [Image #1]", images: [{ sha256: "a".repeat(64), mime: "image/png", marker: "[Image #1]" }] },
          { _tag: "assistant", id: "a0", text: "ok", model: "local/m" }
        )
        yield* runTurn("go on", settings)
      }).pipe(Effect.provide(layer))
    )
    expect(bodyOf(0)).toContain("earlier [Image #1]")
    expect(bodyOf(0)).not.toContain("image_url")
  })

  it("retries once without an image the provider refused, and never offers it again", async () => {
    const { fake, layer, settings, log, attach, bodyOf } = await imageSetup()
    const ref = await attach(1)
    fake.script([{ kind: "error", status: 400, message: "Invalid image: the image data could not be decoded" }, { text: "Without it." }, { text: "Still without." }])
    const rejected = await Effect.runPromise(
      Effect.gen(function* () {
        yield* runTurn({ text: "look [Image #1]", images: [ref] }, settings)
        yield* runTurn("and now?", settings)
        return (yield* (yield* Conversation).document).rejectedImages
      }).pipe(Effect.provide(layer))
    )
    expect(fake.requests).toHaveLength(3)
    expect(bodyOf(0)).toContain(base64)
    expect(bodyOf(1)).not.toContain(base64)
    expect(bodyOf(1)).toContain("look [Image #1]")
    expect(bodyOf(2)).toContain("look [Image #1]")
    expect(bodyOf(2)).not.toContain(base64)
    expect(log.some((line) => line.startsWith("note:") && line.includes("refused the request because of [Image #1]"))).toBe(true)
    expect(rejected).toEqual([ref.sha256])
  })

  it("fails the turn as before when the refusal comes again or is not about an image", async () => {
    const { fake, turn, attach } = await imageSetup()
    const ref = await attach(1)
    fake.script([{ kind: "error", status: 400, message: "Invalid value for messages: unknown role" }])
    const exit = await Effect.runPromiseExit(turn({ text: "look [Image #1]", images: [ref] }))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(fake.requests).toHaveLength(1)
  })

  it("numbers images per session and never reuses a number", async () => {
    const { layer } = await imageSetup()
    const numbers = await Effect.runPromise(
      Effect.gen(function* () {
        const first = yield* reserveImageNumber
        const second = yield* reserveImageNumber
        const failed = yield* Effect.either(attachImageBytes(Buffer.from("not an image"), "clipboard", second))
        const third = yield* reserveImageNumber
        return { first, second, failed: failed._tag, third }
      }).pipe(Effect.provide(layer))
    )
    expect(numbers).toEqual({ first: 1, second: 2, failed: "Left", third: 3 })
  })
})
