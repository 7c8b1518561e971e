/**
 * Images through the compiled binary (issue 12): `crystal run --image` puts the file's exact bytes
 * in the right place of each protocol's request, refuses before any request when the model takes
 * no images or the file is not an image, and a resumed session whose media file is gone keeps the
 * marker and sends the text alone.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { Protocol } from "../../src/config/schema.ts"
import { makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import type { FakeLlm } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { makePng } from "../support/images.ts"

const fakeServer = useFakeServers()

/** Where each protocol's request carries a user image, as a JSON path of the string holding its base64. */
const protocolCases: ReadonlyArray<readonly [Protocol, (url: string) => string, RegExp]> = [
  ["openai-chat", (url) => `${url}/v1`, /^messages\.\d+\.content\.\d+\.image_url\.url$/],
  ["openai-responses", (url) => `${url}/v1`, /^input\.\d+\.content\.\d+\.image_url$/],
  ["anthropic", (url) => url, /^messages\.\d+\.content\.\d+\.source\.data$/],
  ["gemini", (url) => url, /^contents\.\d+\.parts\.\d+\.inlineData\.data$/],
  ["ollama", (url) => url, /^messages\.\d+\.images\.\d+$/],
  ["deepseek", (url) => `${url}/deepseek`, /^messages\.\d+\.content\.\d+\.image_url\.url$/]
]

/** JSON paths of the strings in `value` that contain `needle`. */
const pathsHolding = (value: unknown, needle: string, at = ""): ReadonlyArray<string> => {
  if (typeof value === "string") return value.includes(needle) ? [at] : []
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([key, child]) => pathsHolding(child, needle, at === "" ? key : `${at}.${key}`))
}

const imageConfig = async (sandbox: Sandbox, fake: FakeLlm, protocol: Protocol, baseURL: string, imageInput: boolean) =>
  writeLocalConfig(sandbox, fake.url, {
    model: "fake/test-model",
    providers: { fake: { protocol, baseURL, apiKeyEnv: "FAKE_KEY", models: { "test-model": { imageInput } } } }
  })

const env = { FAKE_KEY: "test-key" }

describe("crystal run --image", () => {
  it.each(protocolCases)("sends the file's exact bytes on the %s wire", async (protocol, baseURL, where) => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await imageConfig(sandbox, fake, protocol, baseURL(fake.url), true)
    const png = makePng(64, 48, { noise: true, seed: 7 })
    await fs.writeFile(path.join(sandbox.workspace, "shot.png"), png)
    fake.script([{ text: "A noisy picture." }])
    const result = await runCrystal(sandbox, ["run", "--image", "shot.png", "what is this?"], { env })
    expect(result.stderr).not.toMatch(/error/i)
    expect(result.code).toBe(0)
    const body = fake.requests[0]?.body
    const holders = pathsHolding(body, png.toString("base64"))
    expect(holders).toHaveLength(1)
    expect(holders[0]).toMatch(where)
    expect(pathsHolding(body, "[Image #1]")).toHaveLength(1)
    // The session keeps the reference, never the bytes; the media file holds exactly them.
    const [file] = await sessionFiles(sandbox)
    const saved = await fs.readFile(file ?? "", "utf8")
    expect(saved).not.toContain(png.toString("base64").slice(0, 100))
    const user = (await readSession(file ?? "")).items.find((item) => item["_tag"] === "user")
    const [ref] = user?.["images"] as Array<{ sha256: string; mime: string; marker: string }>
    expect(ref?.mime).toBe("image/png")
    expect(ref?.marker).toBe("[Image #1]")
    const media = await fs.readFile(path.join(sandbox.home, "media", ref?.sha256 ?? ""))
    expect(media.equals(png)).toBe(true)
  })

  it("attaches several images in order, numbered 1, 2", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await imageConfig(sandbox, fake, "anthropic", fake.url, true)
    const first = makePng(8, 8, { seed: 1, noise: true })
    const second = makePng(9, 9, { seed: 2, noise: true })
    await fs.writeFile(path.join(sandbox.workspace, "a.png"), first)
    await fs.writeFile(path.join(sandbox.workspace, "b.png"), second)
    fake.script([{ text: "Two." }])
    const result = await runCrystal(sandbox, ["run", "--image", "a.png", "--image", "b.png", "compare"], { env })
    expect(result.code).toBe(0)
    const body = JSON.stringify(fake.requests[0]?.body)
    expect(body.indexOf(first.toString("base64"))).toBeGreaterThan(-1)
    expect(body.indexOf(first.toString("base64"))).toBeLessThan(body.indexOf(second.toString("base64")))
    expect(body).toContain("[Image #1] [Image #2]")
  })

  it("refuses on a model without imageInput, before any request", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await imageConfig(sandbox, fake, "openai-chat", `${fake.url}/v1`, false)
    await fs.writeFile(path.join(sandbox.workspace, "shot.png"), makePng(4, 4))
    const result = await runCrystal(sandbox, ["run", "--image", "shot.png", "what is this?"], { env })
    expect(result.code).toBe(2)
    expect(result.stderr.trim()).toBe(
      'crystal: fake/test-model does not take images (imageInput is not set for it); switch to a model with "imageInput": true in config.json'
    )
    expect(fake.requests).toHaveLength(0)
    await expect(fs.readdir(path.join(sandbox.home, "media"))).rejects.toThrow()
  })

  it.each([
    ["missing.png", "", "cannot read the image missing.png (no such file)"],
    ["notes.png", "just some text\n", "notes.png is not a supported image (png, jpeg, gif or webp): it is text, not image bytes"],
    ["doc.png", "%PDF-1.7\n", "doc.png is not a supported image (png, jpeg, gif or webp): it is a PDF document"]
  ])("refuses %s with one line, before any request", async (name, content, message) => {
    const sandbox = await makeSandbox(content === "" ? {} : { [name]: content })
    const fake = await fakeServer()
    await imageConfig(sandbox, fake, "openai-chat", `${fake.url}/v1`, true)
    const result = await runCrystal(sandbox, ["run", "--image", name, "look"], { env })
    expect(result.code).toBe(2)
    expect(result.stderr.trim()).toBe(`crystal: ${message}`)
    expect(fake.requests).toHaveLength(0)
  })

  it("resumes a session whose media file is gone: a note, the marker kept, the text sent alone", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await imageConfig(sandbox, fake, "openai-chat", `${fake.url}/v1`, true)
    const png = makePng(16, 16, { noise: true })
    await fs.writeFile(path.join(sandbox.workspace, "shot.png"), png)
    fake.script([{ text: "Seen." }, { text: "Without it." }])
    expect((await runCrystal(sandbox, ["run", "--image", "shot.png", "look"], { env })).code).toBe(0)
    const mediaDir = path.join(sandbox.home, "media")
    for (const name of await fs.readdir(mediaDir)) await fs.rm(path.join(mediaDir, name))
    const result = await runCrystal(sandbox, ["run", "--continue", "and now?"], { env })
    expect(result.code).toBe(0)
    expect(result.stderr).toContain("[Image #1] is not sent to the model: the media file")
    expect(result.stderr).toContain("is missing; its marker stays in the conversation")
    const body = JSON.stringify(fake.requests[1]?.body)
    expect(body).not.toContain(png.toString("base64").slice(0, 64))
    expect(body).toContain("look\\n\\n[Image #1]")
    const [file] = await sessionFiles(sandbox)
    const user = (await readSession(file ?? "")).items.find((item) => item["_tag"] === "user")
    expect(user?.["images"]).toHaveLength(1)
  })
})

describe("sessions delete and images", () => {
  it("keeps a media file that another session still refers to", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await imageConfig(sandbox, fake, "openai-chat", `${fake.url}/v1`, true)
    await fs.writeFile(path.join(sandbox.workspace, "shot.png"), makePng(6, 6))
    fake.script([{ text: "One." }, { text: "Two." }])
    expect((await runCrystal(sandbox, ["run", "--image", "shot.png", "first"], { env })).code).toBe(0)
    expect((await runCrystal(sandbox, ["run", "--image", "shot.png", "second"], { env })).code).toBe(0)
    const files = await sessionFiles(sandbox)
    expect(files).toHaveLength(2)
    const media = await fs.readdir(path.join(sandbox.home, "media"))
    expect(media).toHaveLength(1)
    const id = path.basename(files[0] ?? "", ".json")
    const deleted = await runCrystal(sandbox, ["sessions", "delete", id], { env })
    expect(deleted.code).toBe(0)
    expect(await fs.readdir(path.join(sandbox.home, "media"))).toEqual(media)
  })
})
