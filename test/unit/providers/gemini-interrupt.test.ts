import { beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { geminiFrame, geminiSetup, sseHeaders } from "./gemini-fixtures.ts"
import { interruptsBeforeResponse, interruptsMidStream } from "./interruption.ts"

/**
 * Vitest maps every stack trace through source maps, and aborting makes Node build an AbortError
 * whose stack passes through the SDK: the first time, that loads the SDK's 900 KB source map, which
 * takes a second on a busy machine. That is the test runner's cost, not the adapter's: pay it first.
 */
const warmSdkSourceMap = async (): Promise<void> => {
  const { GoogleGenAI } = await import("@google/genai")
  const sdk = new GoogleGenAI({ vertexai: false, apiKey: "warm-up" })
  await sdk.models.generateContentStream({ model: "", contents: "x" }).catch((error: unknown) => String(error instanceof Error ? error.stack : error))
}

describe("gemini adapter: interruption", () => {
  beforeAll(warmSdkSourceMap)

  it.scopedLive("interrupting mid-stream closes the connection at once", () =>
    Effect.flatMap(geminiSetup(), (adapter) =>
      interruptsMidStream(
        adapter,
        { headers: sseHeaders, chunks: [geminiFrame([{ text: "first" }]), geminiFrame([{ text: "second" }], { finishReason: "STOP" })] },
        "text_delta"
      )
    )
  )

  it.scopedLive("interrupting while the model thinks aborts the request", () => Effect.flatMap(geminiSetup(), interruptsBeforeResponse))
})
