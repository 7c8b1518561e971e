import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import { makeOllamaClient } from "../../../src/providers/ollama.ts"
import { fakeLlm, requestFor } from "./fixtures.ts"
import { interruptsBeforeResponse, interruptsMidStream } from "./interruption.ts"

const setup = Effect.map(fakeLlm, (fake) => {
  const model: ModelEntry = {
    ref: "ollama/qwen3:8b",
    id: "qwen3:8b",
    provider: { name: "ollama", protocol: "ollama", baseURL: fake.url, apiKeyEnv: [], headers: {} },
    capabilities: { contextWindow: 40_960, maxOutputTokens: 4_096, imageInput: false, reasoning: false },
    listed: true
  }
  return { fake, model, client: makeOllamaClient(model, {}) }
})

const textLine = (content: string) =>
  `${JSON.stringify({ model: "qwen3:8b", created_at: "t", message: { role: "assistant", content }, done: false })}\n`

describe("ollama adapter: interruption", () => {
  it.scopedLive("interrupting mid-stream closes the connection at once", () =>
    Effect.flatMap(setup, (adapter) =>
      interruptsMidStream(adapter, { headers: { "content-type": "application/x-ndjson" }, chunks: [textLine("first"), textLine("second")] }, "text_delta")
    )
  )

  it.scopedLive("interrupting while the model loads or thinks aborts the request", () => Effect.flatMap(setup, interruptsBeforeResponse))

  it.scopedLive("two streams at once each abort only their own request", () =>
    Effect.gen(function* () {
      const { fake, model, client } = yield* setup
      fake.script([{ text: "slow", delayMs: 10_000 }, { text: ["quick", " answer"], delayMs: 200 }])
      const slow = yield* client.stream(requestFor(model)).pipe(Stream.runDrain, Effect.fork)
      const slowRequest = yield* Effect.promise(() => fake.waitForRequest(1, { timeoutMs: 5_000 }))
      const quick = yield* client.stream(requestFor(model)).pipe(Stream.runCollect, Effect.fork)
      yield* Effect.promise(() => fake.waitForRequest(2, { timeoutMs: 5_000 }))
      yield* Fiber.interrupt(slow)
      const closed = yield* Effect.promise(() => slowRequest.closed)
      expect(closed.beforeReplyFinished).toBe(true)
      const events = yield* Fiber.join(quick)
      expect([...events].filter((event) => event.type === "text_delta").map((event) => event.text)).toEqual(["quick", " answer"])
    })
  )
})
