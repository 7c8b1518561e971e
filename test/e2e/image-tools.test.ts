/**
 * The image tools in the compiled binary: view_image shrinks an over-limit PNG and JPEG with the
 * bundled pure-JS codecs (loaded on first use, nothing native) and the next request carries the
 * result; describe_image is offered in plan mode and asks the image model.
 */
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as jpeg from "jpeg-js"
import { afterEach, describe, expect, it } from "vitest"
import { imageSize } from "../../src/media/image-size.ts"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"
import { makePng } from "../support/images.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

type Json = Record<string, unknown>
const records = (value: unknown): ReadonlyArray<Json> => (Array.isArray(value) ? value.filter((v): v is Json => typeof v === "object" && v !== null) : [])

/** The images of the tool results of an Anthropic request, as bytes. */
const toolResultImages = (body: unknown): ReadonlyArray<Buffer> =>
  records((body as Json)["messages"])
    .flatMap((message) => records(message["content"]).filter((block) => block["type"] === "tool_result"))
    .flatMap((block) => records(block["content"]).filter((part) => part["type"] === "image"))
    .map((part) => Buffer.from(String((part["source"] as Json)["data"]), "base64"))

const gradientJpeg = (width: number, height: number): Buffer => {
  const data = new Uint8Array(width * height * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 7) & 0xff))
  return jpeg.encode({ data, width, height }, 90).data
}

describe("the image tools in the compiled binary", () => {
  it("view_image shrinks a PNG and a JPEG over the model's limits, and the next request carries them", async () => {
    const sandbox = await makeSandbox()
    await fsp.writeFile(path.join(sandbox.workspace, "wide.png"), makePng(800, 400))
    await fsp.writeFile(path.join(sandbox.workspace, "tall.jpg"), gradientJpeg(300, 900))
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url, {
      model: "eye/seer",
      providers: { eye: { protocol: "anthropic", baseURL: fake.url, apiKeyEnv: "EYE_KEY", models: { seer: { imageInput: true, maxImagePixels: 200 } } } }
    })
    fake.script([
      { toolCalls: [{ name: "view_image", arguments: { path: "wide.png" } }, { name: "view_image", arguments: { path: "tall.jpg" } }] },
      { text: "Two gradients." }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "look at both"], { env: { EYE_KEY: "k" } })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const outputs = jsonLines(result.stdout).filter((event) => event["type"] === "tool_result").map((event) => event["output"])
    expect(outputs).toEqual([
      "[Image #1] wide.png (200×100, image/png; shrunk from 800×400 to fit what eye/seer takes)",
      "[Image #2] tall.jpg (67×200, image/jpeg; shrunk from 300×900 to fit what eye/seer takes)"
    ])
    const [png, jpg] = toolResultImages(fake.requests[1]?.body)
    expect(png !== undefined && imageSize(png, "image/png")).toEqual({ width: 200, height: 100 })
    expect(jpg !== undefined && imageSize(jpg, "image/jpeg")).toEqual({ width: 67, height: 200 })
  })

  it("describe_image works in plan mode through the image model, and view_image is absent for a text-only model", async () => {
    const sandbox = await makeSandbox()
    await fsp.writeFile(path.join(sandbox.workspace, "shot.png"), makePng(40, 30))
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url, {
      imageModel: "eye/seer",
      providers: {
        local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { "test-model": {} } },
        eye: { protocol: "anthropic", baseURL: fake.url, apiKeyEnv: "EYE_KEY", models: { seer: { imageInput: true } } }
      }
    })
    fake.script([{ toolCalls: [{ name: "describe_image", arguments: { path: "shot.png" } }] }, { text: "A red and green gradient." }, { text: "It is a gradient." }])
    const result = await runCrystal(sandbox, ["run", "--mode", "plan", "--format", "json", "what is shot.png?"], { env: { EYE_KEY: "k" } })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const tools = records((fake.requests[0]?.body as Json)["tools"]).map((tool) => (tool["function"] as Json)["name"])
    expect(tools).toContain("describe_image")
    expect(tools).not.toContain("view_image")
    expect(fake.requests.map((request) => request.protocol)).toEqual(["openai-chat", "anthropic", "openai-chat"])
    expect(jsonLines(result.stdout).find((event) => event["type"] === "tool_result")?.["output"]).toBe("A red and green gradient.")
  })
})
