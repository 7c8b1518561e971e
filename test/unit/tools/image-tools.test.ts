/**
 * view_image and describe_image in real sessions against the fake provider servers: the image a
 * tool attaches reaches the next request in each protocol's place for tool-result images, byte
 * for byte; describe_image's side request carries the image and no tools and leaves the
 * conversation as it was; the catalogs follow SPEC I7; the read fence holds.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { afterEach, describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { prepareSession, type PreparedSession } from "../../../layers/prepare.ts"
import { startSession } from "../../../layers/session.ts"
import type { Config, Protocol } from "../../../src/config/schema.ts"
import { Toolbox } from "../../../src/engine/toolbox.ts"
import { makePathFence } from "../../../src/approval/path-fence.ts"
import type { ToolContext } from "../../../src/tools/tool.ts"
import { viewImage } from "../../../src/tools/view-image.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import { imageSize } from "../../../src/media/image-size.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"
import { startFakeLlm, type FakeLlm, type Reply } from "../../support/fake-llm/server.ts"
import { makePng } from "../../support/images.ts"
import { preparedSession } from "../../support/prepared.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { tempDir } from "../../support/temp.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

type Json = Record<string, unknown>
const records = (value: unknown): ReadonlyArray<Json> => (Array.isArray(value) ? value.filter((v): v is Json => typeof v === "object" && v !== null) : [])
const stripDataUrl = (url: unknown): string => String(url).replace(/^data:image\/png;base64,/, "")

/** The base64 images each protocol carries for tool results, read from the recorded request body (SPEC I2). */
const toolResultImages: Record<Protocol, (body: Json) => ReadonlyArray<string>> = {
  // A tool message takes text only: the images follow in a user message after it.
  "openai-chat": (body) => {
    const messages = records(body["messages"])
    const tool = messages.findIndex((message) => message["role"] === "tool")
    return messages
      .slice(tool + 1)
      .filter((message) => message["role"] === "user")
      .flatMap((message) => records(message["content"]).filter((part) => part["type"] === "image_url"))
      .map((part) => stripDataUrl((part["image_url"] as Json)["url"]))
  },
  deepseek: (body) => toolResultImages["openai-chat"](body),
  "openai-responses": (body) =>
    records(body["input"])
      .filter((item) => item["type"] === "function_call_output")
      .flatMap((item) => records(item["output"]).filter((part) => part["type"] === "input_image"))
      .map((part) => stripDataUrl(part["image_url"])),
  anthropic: (body) =>
    records(body["messages"])
      .flatMap((message) => records(message["content"]).filter((block) => block["type"] === "tool_result"))
      .flatMap((block) => records(block["content"]).filter((part) => part["type"] === "image"))
      .map((part) => String((part["source"] as Json)["data"])),
  gemini: (body) =>
    records(body["contents"])
      .flatMap((content) => records(content["parts"]))
      .flatMap((part) => (part["functionResponse"] === undefined ? [] : records((part["functionResponse"] as Json)["parts"])))
      .map((part) => String((part["inlineData"] as Json)["data"])),
  ollama: (body) =>
    records(body["messages"])
      .filter((message) => message["role"] === "tool")
      .flatMap((message) => (Array.isArray(message["images"]) ? message["images"].map(String) : []))
}

const baseURLs: Record<Protocol, (url: string) => string> = {
  "openai-chat": (url) => `${url}/v1`,
  "openai-responses": (url) => `${url}/v1`,
  anthropic: (url) => url,
  gemini: (url) => url,
  ollama: (url) => url,
  deepseek: (url) => `${url}/deepseek`
}

const env = { FAKE_KEY: "test-key" }

const providerConfig = (fake: FakeLlm, protocol: Protocol, models: Record<string, Record<string, unknown>>): Config["providers"] => ({
  fake: { protocol, baseURL: baseURLs[protocol](fake.url), apiKeyEnv: "FAKE_KEY", models }
})

const quiet = silentRenderer()

/** Runs one turn of `prompt` in a real session; returns the transcript it left. */
const runSession = (prepared: PreparedSession, prompt: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* startSession(prepared, { env, renderer: quiet, operator: headlessOperator })
        yield* runTurn(prompt, { maxSteps: 5 }).pipe(Effect.provide(session.services))
        const toolbox = Context.get(session.services, Toolbox)
        return { plan: toolbox.catalog("plan").map((tool) => tool.name), work: toolbox.catalog("work").map((tool) => tool.name) }
      })
    )
  )

const toolResults = async (prepared: PreparedSession): Promise<ReadonlyArray<Extract<TranscriptItem, { _tag: "tool_result" }>>> => {
  const saved = await Effect.runPromise(prepared.store.load(prepared.document.id))
  return saved.items.filter((item): item is Extract<TranscriptItem, { _tag: "tool_result" }> => item._tag === "tool_result")
}

const withScreenshot = async (bytes: Uint8Array) => {
  const root = await tempDir()
  await fs.mkdir(path.join(root, "docs"))
  await fs.writeFile(path.join(root, "docs", "shot.png"), bytes)
  return root
}

describe.each(Object.keys(baseURLs) as ReadonlyArray<Protocol>)("view_image on the %s protocol", (protocol) => {
  it("attaches the workspace image to its result, and the next request carries it where tool-result images go, byte for byte", async () => {
    const fake = await startFakeLlm()
    servers.push(fake)
    const png = makePng(64, 48)
    const root = await withScreenshot(png)
    const prepared = preparedSession(root, { providers: providerConfig(fake, protocol, { eyes: { imageInput: true } }) }, "fake/eyes")
    fake.script([{ toolCalls: [{ name: "view_image", arguments: { path: "docs/shot.png" } }] }, { text: "A gradient." }])
    await runSession(prepared, "what does docs/shot.png show?")
    expect(fake.requests).toHaveLength(2)
    const [result] = await toolResults(prepared)
    expect(result?.isError).not.toBe(true)
    expect(result?.text).toBe("[Image #1] docs/shot.png (64×48, image/png)")
    expect(result?.images?.map((image) => image.marker)).toEqual(["[Image #1]"])
    expect(toolResultImages[protocol](fake.requests[0]?.body as Json)).toEqual([])
    expect(toolResultImages[protocol](fake.requests[1]?.body as Json)).toEqual([Buffer.from(png).toString("base64")])
  })
})

describe("view_image", () => {
  it("shrinks an image over the active model's limits before it is stored, and says so", async () => {
    const fake = await startFakeLlm()
    servers.push(fake)
    const root = await withScreenshot(makePng(400, 300))
    const prepared = preparedSession(root, { providers: providerConfig(fake, "anthropic", { eyes: { imageInput: true, maxImagePixels: 100 } }) }, "fake/eyes")
    fake.script([{ toolCalls: [{ name: "view_image", arguments: { path: "docs/shot.png" } }] }, { text: "Small now." }])
    await runSession(prepared, "look")
    const [result] = await toolResults(prepared)
    expect(result?.text).toBe("[Image #1] docs/shot.png (100×75, image/png; shrunk from 400×300 to fit what fake/eyes takes)")
    const [sent] = toolResultImages.anthropic(fake.requests[1]?.body as Json)
    expect(imageSize(Buffer.from(sent ?? "", "base64"), "image/png")).toEqual({ width: 100, height: 75 })
  })

  it("refuses a path outside the workspace through the read fence, and a file that is not an image", async () => {
    const fake = await startFakeLlm()
    servers.push(fake)
    const root = await withScreenshot(makePng(8, 8))
    const outside = await tempDir()
    await fs.writeFile(path.join(outside, "secret.png"), makePng(8, 8))
    await fs.writeFile(path.join(root, "notes.txt"), "not an image\n")
    const prepared = preparedSession(root, { providers: providerConfig(fake, "openai-chat", { eyes: { imageInput: true } }) }, "fake/eyes")
    fake.script([
      { toolCalls: [{ name: "view_image", arguments: { path: path.join(outside, "secret.png") } }, { name: "view_image", arguments: { path: "notes.txt" } }] },
      { text: "Neither." }
    ])
    await runSession(prepared, "look")
    const results = await toolResults(prepared)
    expect(results.map((result) => result.isError)).toEqual([true, true])
    // Outside the workspace a read needs the operator's approval, which a headless run cannot give.
    expect(results[0]?.text).toMatch(/^Denied: view_image .*secret\.png needs the operator's approval/)
    expect(results[1]?.text).toBe("notes.txt is not a supported image (png, jpeg, gif or webp): it is text, not image bytes")
    expect(results.flatMap((result) => result.images ?? [])).toEqual([])
    expect(JSON.stringify(fake.requests[1]?.body)).not.toContain(Buffer.from(makePng(8, 8)).toString("base64"))
  })

  it("reads only what the read fence allows, a symbolic link out of the workspace included", async () => {
    const root = await withScreenshot(makePng(8, 8))
    const outside = await tempDir()
    await fs.writeFile(path.join(outside, "secret.png"), makePng(8, 8))
    await fs.symlink(path.join(outside, "secret.png"), path.join(root, "link.png"))
    let attached = 0
    const context: ToolContext = {
      fence: makePathFence(root),
      sessionId: "s",
      secrets: noSecrets,
      spill: () => Effect.succeed("/dev/null"),
      images: { attach: () => Effect.sync(() => void attached++).pipe(Effect.flatMap(() => Effect.die("attached"))) }
    }
    const run = (file: string) => Effect.runPromise(Effect.either(viewImage({ path: file }, context)))
    const direct = await run(path.join(outside, "secret.png"))
    expect(Either.isLeft(direct) && direct.left.message).toMatch(/secret\.png' is outside the workspace .* read refused$/)
    const linked = await run("link.png")
    expect(Either.isLeft(linked) && linked.left.message).toMatch(/^'link\.png' is outside the workspace .*through a symbolic link.*read refused$/)
    expect(attached).toBe(0)
  })

  it("refuses an image over the limit, naming both sizes so they differ", async () => {
    const root = await withScreenshot(makePng(8, 8))
    await fs.writeFile(path.join(root, "huge.png"), "")
    await fs.truncate(path.join(root, "huge.png"), 20 * 1024 * 1024 + 1)
    const context: ToolContext = {
      fence: makePathFence(root),
      sessionId: "s",
      secrets: noSecrets,
      spill: () => Effect.succeed("/dev/null"),
      images: { attach: () => Effect.die("attached") }
    }
    const refused = await Effect.runPromise(Effect.either(viewImage({ path: "huge.png" }, context)))
    expect(Either.isLeft(refused) && refused.left.message).toBe("huge.png is too large: 20971521 bytes, the limit is 20971520 bytes.")
  })

  it("is offered only while the active model takes images; describe_image only with an imageModel", async () => {
    const fake = await startFakeLlm()
    servers.push(fake)
    const root = await withScreenshot(makePng(8, 8))
    const text = preparedSession(root, { providers: providerConfig(fake, "openai-chat", { plain: {}, eyes: { imageInput: true } }) }, "fake/plain")
    fake.script([{ text: "ok" }, { text: "ok" }, { text: "ok" }])
    const textOnly = await runSession(text, "hi")
    expect(textOnly.plan).not.toContain("view_image")
    expect(textOnly.work).not.toContain("view_image")
    expect(textOnly.work).not.toContain("describe_image")
    expect(JSON.stringify(fake.requests[0]?.body)).not.toContain("view_image")
    const sighted = preparedSession(root, { providers: providerConfig(fake, "openai-chat", { plain: {}, eyes: { imageInput: true } }), imageModel: "fake/eyes" }, "fake/eyes")
    const both = await runSession(sighted, "hi")
    expect(both.plan).toEqual(["read", "list", "tree", "glob", "grep", "search", "todowrite", "todoread", "plan", "question", "view_image", "describe_image", "web_fetch", "task", "propose_plan"])
    expect(both.work.slice(10, 15)).toEqual(["view_image", "describe_image", "web_fetch", "task", "edit"])
    const disabled = await runSession({ ...sighted, disabledTools: ["view_image", "describe_image"] }, "hi")
    expect(disabled.plan).toEqual(["read", "list", "tree", "glob", "grep", "search", "todowrite", "todoread", "plan", "question", "web_fetch", "task", "propose_plan"])
    expect(disabled.work).not.toContain("view_image")
  })
})

describe("describe_image", () => {
  it("asks the image model in a side request with the image and no tools, and keeps nothing of it", async () => {
    const fake = await startFakeLlm()
    servers.push(fake)
    const png = makePng(32, 32)
    const root = await withScreenshot(png)
    const config: Config = {
      providers: { ...providerConfig(fake, "openai-chat", { coder: {} }), eye: { protocol: "anthropic", baseURL: fake.url, apiKeyEnv: "FAKE_KEY", models: { seer: { imageInput: true } } } },
      imageModel: "eye/seer"
    }
    const prepared = preparedSession(root, config, "fake/coder")
    const replies: ReadonlyArray<Reply> = [
      { toolCalls: [{ name: "describe_image", arguments: { path: "docs/shot.png", question: "what colour is it?" } }] },
      { text: "Mostly a gradient of greens." },
      { text: "The screenshot is a green gradient." }
    ]
    fake.script(replies)
    const catalogs = await runSession(prepared, "describe docs/shot.png")
    expect(catalogs.work).toContain("describe_image")
    expect(catalogs.work).not.toContain("view_image")
    expect(fake.requests.map((request) => request.protocol)).toEqual(["openai-chat", "anthropic", "openai-chat"])
    const side = fake.requests[1]?.body as Json
    expect(side["tools"]).toBeUndefined()
    expect(String(side["system"] === undefined ? "" : JSON.stringify(side["system"]))).toContain("You describe images for")
    const [message, ...others] = records(side["messages"])
    expect(others).toEqual([])
    const blocks = records(message?.["content"])
    expect(blocks.filter((block) => block["type"] === "image").map((block) => (block["source"] as Json)["data"])).toEqual([Buffer.from(png).toString("base64")])
    expect(blocks.find((block) => block["type"] === "text")?.["text"]).toBe("Describe this image for a coding agent. What it needs to know: what colour is it?")
    const [result] = await toolResults(prepared)
    expect(result?.text).toBe("Mostly a gradient of greens.")
    expect(result?.images).toBeUndefined()
    const saved = await Effect.runPromise(prepared.store.load(prepared.document.id))
    expect(saved.items.map((item) => item._tag)).toEqual(["user", "assistant", "tool_result", "assistant"])
    expect(JSON.stringify(saved)).not.toContain("Describe this image for a coding agent")
    expect(saved.imageCount ?? 0).toBe(0)
    // The main model's next request holds the answer as text, and no image.
    expect(JSON.stringify(fake.requests[2]?.body)).toContain("Mostly a gradient of greens.")
    expect(JSON.stringify(fake.requests[2]?.body)).not.toContain(Buffer.from(png).toString("base64"))
  })

  it("fails the call, not the session, when the image model's key is missing", async () => {
    const fake = await startFakeLlm()
    servers.push(fake)
    const root = await withScreenshot(makePng(8, 8))
    const config: Config = {
      providers: { ...providerConfig(fake, "openai-chat", { coder: {} }), eye: { protocol: "anthropic", baseURL: fake.url, apiKeyEnv: "EYE_KEY", models: { seer: { imageInput: true } } } },
      imageModel: "eye/seer"
    }
    const prepared = preparedSession(root, config, "fake/coder")
    fake.script([{ toolCalls: [{ name: "describe_image", arguments: { path: "docs/shot.png" } }] }, { text: "No luck." }])
    await runSession(prepared, "describe it")
    const [result] = await toolResults(prepared)
    expect(result?.isError).toBe(true)
    expect(result?.text).toBe("describe_image: provider 'eye' needs an API key: set EYE_KEY in the environment")
    expect(fake.requests.map((request) => request.protocol)).toEqual(["openai-chat", "openai-chat"])
  })

  it("refuses at start an imageModel that takes no images, and one not written as PROVIDER/MODEL", async () => {
    const root = await tempDir()
    const home = path.join(root, "home")
    await fs.mkdir(home)
    const flags = { model: undefined, mode: undefined, approval: undefined, disableTool: [], resume: undefined, continue: false, promptSet: undefined, promptAttachments: "on" as const, promptAttachment: [] }
    const prepare = async (config: Config) => {
      await fs.writeFile(path.join(home, "config.json"), JSON.stringify({ model: "local/m", providers: { local: { baseURL: "http://127.0.0.1:9/v1", models: { m: {}, eyes: { imageInput: true } } } }, ...config }))
      const result = await Effect.runPromise(Effect.either(prepareSession(flags, root, { CRYSTAL_HOME: home })))
      return Either.isLeft(result) ? result.left.message : "prepared"
    }
    const file = path.join(home, "config.json")
    expect(await prepare({ imageModel: "local/m" })).toBe(`${file}: imageModel: local/m does not take images; name an image model, or set "imageInput": true under providers.local.models.m`)
    expect(await prepare({ imageModel: "eyes" })).toBe(`${file}: imageModel: expected PROVIDER/MODEL (e.g. "openai/gpt-5.4"), got "eyes"`)
    expect(await prepare({ imageModel: "local/eyes" })).toBe("prepared")
  })
})
