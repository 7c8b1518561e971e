import { describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { chatSetup } from "./fixtures.ts"
import { interruptsBeforeResponse, interruptsMidStream } from "./interruption.ts"

const textChunk = (text: string) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`

describe("openai-chat adapter: interruption", () => {
  it.scopedLive("interrupting mid-stream closes the connection at once", () =>
    Effect.flatMap(chatSetup(), (adapter) =>
      interruptsMidStream(adapter, { headers: { "content-type": "text/event-stream" }, chunks: [textChunk("first"), textChunk("second")] }, "text_delta")
    )
  )

  it.scopedLive("interrupting while the model thinks aborts the request", () => Effect.flatMap(chatSetup(), interruptsBeforeResponse))
})
