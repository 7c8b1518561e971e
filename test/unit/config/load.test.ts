import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { loadConfig, mergeForSave, parseConfigText, saveConfig } from "../../../src/config/load.ts"
import { tempDir } from "../../support/temp.ts"

const file = "/home/u/.crystal/config.json"

const errorOf = (text: string): string => {
  const result = parseConfigText(file, text)
  if (Either.isRight(result)) throw new Error("expected a failure")
  return result.left.message
}

describe("config.json validation", () => {
  it("accepts the documented shape", () => {
    const text = JSON.stringify({
      model: "local/qwen3-coder",
      providers: {
        local: {
          protocol: "openai-chat",
          baseURL: "http://127.0.0.1:8080/v1",
          apiKeyEnv: "LOCAL_API_KEY",
          headers: {},
          models: { "qwen3-coder": { contextWindow: 32768, maxOutputTokens: 8192, imageInput: false } }
        }
      },
      bashTimeoutSeconds: 120,
      backgroundBashTimeoutSeconds: "unlimited",
      externalTools: false,
      skills: true,
      imageModel: "openai/gpt-5.1"
    })
    const result = parseConfigText(file, text)
    expect(Either.isRight(result)).toBe(true)
  })

  it.each([
    ['{"model": 42}', /config\.json: model: expected string, got 42$/],
    ['{"providers": {"local": {"protocol": "grpc"}}}', /providers\.local\.protocol: expected "openai-responses" or "openai-chat" or .* or "ollama", got "grpc"$/],
    ['{"providers": {"local": {"models": {"m": {"contextWindow": -5}}}}}', /providers\.local\.models\.m\.contextWindow: .*positive/],
    ['{"bashTimeoutSeconds": "soon"}', /bashTimeoutSeconds: /],
    ['{"backgroundBashTimeoutSeconds": "forever"}', /backgroundBashTimeoutSeconds: expected number or null or "unlimited", got "forever"$/],
    ["[1, 2]", /expected a JSON object at the top level/],
    ['{"model": "a",\n  "skills": tru }', /not valid JSON at line 2, column 13: unexpected "tru }"$/]
  ])("rejects %s with the field and what was expected", (text, pattern) => {
    const message = errorOf(text)
    expect(message).toMatch(pattern)
    expect(message.startsWith(file)).toBe(true)
    expect(message).not.toContain("\n")
  })

  it("counts further problems instead of printing them all", () => {
    expect(errorOf('{"model": 1, "skills": 2, "externalTools": 3}')).toMatch(/\(and 2 more problems\)$/)
  })

  it("ignores the legacy promptSet and promptAttachments keys", () => {
    const result = parseConfigText(file, '{"promptSet": "x", "promptAttachments": ["a"]}')
    expect(Either.getOrThrow(result).config).toEqual({})
  })
})

describe("loading and saving", () => {
  it("treats a missing file as an empty configuration", async () => {
    const dir = await tempDir()
    const loaded = await Effect.runPromise(loadConfig(path.join(dir, "config.json")))
    expect(loaded.config).toEqual({})
  })

  it("never touches a broken file", async () => {
    const dir = await tempDir()
    const target = path.join(dir, "config.json")
    const broken = '{"model": "x", oops'
    await fs.writeFile(target, broken)
    const result = await Effect.runPromise(Effect.either(loadConfig(target)))
    expect(Either.isLeft(result)).toBe(true)
    expect(await fs.readFile(target, "utf8")).toBe(broken)
  })

  it("keeps unknown keys, omits defaults and drops legacy keys", () => {
    const raw = { futureKey: { nested: true }, promptSet: "old", skills: false, bashTimeoutSeconds: 60 }
    expect(mergeForSave(raw, { skills: true, bashTimeoutSeconds: 120, externalTools: false, model: "a/b" })).toEqual({
      futureKey: { nested: true },
      externalTools: false,
      model: "a/b"
    })
    expect(mergeForSave({ model: "a/b", x: 1 }, { model: undefined })).toEqual({ x: 1 })
  })

  it("saves atomically with owner-only permissions and reloads what it wrote", async () => {
    const dir = await tempDir()
    const target = path.join(dir, "home", "config.json")
    await fs.mkdir(path.dirname(target))
    await fs.writeFile(target, '{"unknown": [1, 2], "model": "a/b"}')
    const loaded = await Effect.runPromise(loadConfig(target))
    const saved = await Effect.runPromise(saveConfig(loaded, { model: "c/d" }))
    expect(saved.config.model).toBe("c/d")
    expect(JSON.parse(await fs.readFile(target, "utf8"))).toEqual({ unknown: [1, 2], model: "c/d" })
    expect((await fs.stat(target)).mode & 0o777).toBe(0o600)
    expect((await fs.readdir(path.dirname(target))).filter((name) => name.endsWith(".tmp"))).toEqual([])
  })

  it("refuses to save a change that would not load again", async () => {
    const dir = await tempDir()
    const target = path.join(dir, "config.json")
    await fs.writeFile(target, "{}")
    const loaded = await Effect.runPromise(loadConfig(target))
    const result = await Effect.runPromise(Effect.either(saveConfig(loaded, { maxSteps: -1 })))
    expect(Either.isLeft(result)).toBe(true)
    expect(await fs.readFile(target, "utf8")).toBe("{}")
  })
})
