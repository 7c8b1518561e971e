import { describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import { makeDeepSeekClient } from "../../../src/providers/deepseek.ts"
import { fakeLlm, keyEnv } from "./fixtures.ts"
import { interruptsBeforeResponse, interruptsMidStream } from "./interruption.ts"

const setup = Effect.map(fakeLlm, (fake) => {
  const model: ModelEntry = {
    ref: "deepseek/deepseek-v4-flash",
    id: "deepseek-v4-flash",
    provider: { name: "deepseek", protocol: "deepseek", baseURL: `${fake.url}/deepseek`, apiKeyEnv: [keyEnv], headers: {} },
    capabilities: { contextWindow: 131_072, maxOutputTokens: 8_192, imageInput: false, reasoning: true },
    listed: true
  }
  return { fake, model, client: makeDeepSeekClient(model, { [keyEnv]: "sk-deepseek" }) }
})

const reasoningChunk = (text: string) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: null, reasoning_content: text }, finish_reason: null }] })}\n\n`

describe("deepseek adapter: interruption", () => {
  it.scopedLive("interrupting mid-reasoning closes the connection at once", () =>
    Effect.flatMap(setup, (adapter) =>
      interruptsMidStream(
        adapter,
        { headers: { "content-type": "text/event-stream" }, chunks: [reasoningChunk("first thought"), reasoningChunk("second thought")] },
        "reasoning_delta"
      )
    )
  )

  it.scopedLive("interrupting before the response starts aborts the request", () => Effect.flatMap(setup, interruptsBeforeResponse))
})
