/** Session titles: a side request with the topic prompt after the first exchange; failures leave the session untitled. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { startSession } from "../../../layers/session.ts"
import { jsonRenderer } from "../../../src/cli/render/json.ts"
import type { Config } from "../../../src/config/schema.ts"
import { cleanTitle } from "../../../src/engine/titler.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import type { SessionDocument } from "../../../src/session/document.ts"
import { startFakeLlm, type FakeLlm, type Reply } from "../../support/fake-llm/server.ts"
import { preparedSession } from "../../support/prepared.ts"
import { tempDir } from "../../support/temp.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const quiet = { ...jsonRenderer, sessionStarted: () => Effect.void, textDelta: () => Effect.void, assistantMessage: () => Effect.void }

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown }>
  readonly tools?: ReadonlyArray<unknown>
}

/** One answered turn, then `nameSession` twice; the session as saved afterwards. */
const titled = async (titleReply: Reply | undefined, options: { readonly timeoutMs?: number; readonly topic?: string } = {}) => {
  const fake = await startFakeLlm()
  servers.push(fake)
  const root = await tempDir()
  const config: Config = { providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { m: {} } } } }
  const prepared = preparedSession(root, config, "local/m")
  if (options.topic !== undefined) {
    await fs.mkdir(path.join(prepared.paths.home, "prompts"), { recursive: true })
    await fs.writeFile(path.join(prepared.paths.home, "prompts", "topic.md"), options.topic)
  }
  fake.script([{ text: "I fixed the login check in auth.ts." }, ...(titleReply === undefined ? [] : [titleReply])])
  const started = Date.now()
  const results = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* startSession(prepared, { env: {}, renderer: quiet, operator: headlessOperator })
        const before = yield* session.nameSession(options.timeoutMs)
        yield* runTurn("please fix the login bug", { maxSteps: 5 }).pipe(Effect.provide(session.services))
        const first = yield* session.nameSession(options.timeoutMs)
        const second = yield* session.nameSession(options.timeoutMs)
        return [before, first, second]
      })
    )
  )
  const saved: SessionDocument = await Effect.runPromise(prepared.store.load(prepared.document.id))
  return { fake, results, saved, elapsedMs: Date.now() - started }
}

describe("session titles", () => {
  it("cleans the model's answer into a short title", () => {
    expect(cleanTitle('"Fix login bug."\n')).toBe("Fix login bug")
    expect(cleanTitle("\n\nTitle: **Refactor the parser**")).toBe("Refactor the parser")
    expect(cleanTitle("   \n")).toBeUndefined()
    expect(cleanTitle("x".repeat(200))).toHaveLength(80)
  })

  it("names the session once, after the first exchange, with the topic prompt and no tools", async () => {
    const { fake, results, saved } = await titled({ text: '"Fix the login bug."' })
    expect(results).toEqual([undefined, "Fix the login bug", undefined])
    expect(saved.title).toBe("Fix the login bug")
    expect(fake.requests).toHaveLength(2)
    const body = fake.requests[1]?.body as ChatBody
    expect(body.tools ?? []).toEqual([])
    expect(body.messages).toHaveLength(1)
    expect(body.messages[0]?.role).toBe("user")
    expect(body.messages[0]?.content).toContain("Name this coding session in at most six words")
    expect(body.messages[0]?.content).toContain("[user] please fix the login bug\n[assistant] I fixed the login check in auth.ts.")
    // The side request is not part of the transcript.
    expect(saved.items.map((item) => item._tag)).toEqual(["user", "assistant"])
  })

  it("counts what the title request cost in the session's usage, under the model that answered", async () => {
    const { saved } = await titled({ text: "Login fix", usage: { inputTokens: 70, outputTokens: 4 } })
    const turnUsage = saved.items.flatMap((item) => (item._tag === "assistant" && item.usage !== undefined ? [item.usage] : []))
    expect(turnUsage).toHaveLength(1)
    expect(saved.usage.inputTokens).toBe((turnUsage[0]?.inputTokens ?? 0) + 70)
    expect(saved.usage.outputTokens).toBe((turnUsage[0]?.outputTokens ?? 0) + 4)
    expect(saved.usageByModel).toEqual({ "local/m": saved.usage })
  })

  it("uses a replaced topic prompt with its placeholders bound", async () => {
    const { fake, saved } = await titled({ text: "Login fix" }, { topic: "Title for {{workspace}}:\n{{conversation}}\n" })
    expect((fake.requests[1]?.body as ChatBody).messages[0]?.content).toMatch(/^Title for \/.+:\n\[user\] please fix the login bug/)
    expect(saved.title).toBe("Login fix")
  })

  it("leaves the session untitled when the request fails, and tries only once", async () => {
    const { fake, results, saved } = await titled({ kind: "error", status: 400, message: "bad request" })
    expect(results).toEqual([undefined, undefined, undefined])
    expect(saved.title).toBeUndefined()
    expect(fake.requests).toHaveLength(2)
  })

  it("gives up at the timeout", async () => {
    const { results, saved, elapsedMs } = await titled({ text: ["Too ", "slow"], chunkDelayMs: 5_000 }, { timeoutMs: 300 })
    expect(results[1]).toBeUndefined()
    expect(saved.title).toBeUndefined()
    expect(elapsedMs).toBeLessThan(4_000)
  })
})
