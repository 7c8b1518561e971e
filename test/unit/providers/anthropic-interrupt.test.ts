import { describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { anthropicEvent } from "../../support/fake-llm/anthropic.ts"
import { anthropicSetup, messageStart, sseHeaders } from "./anthropic-fixtures.ts"
import { interruptsBeforeResponse, interruptsMidStream } from "./interruption.ts"

const textDelta = (text: string) => anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text } })

describe("anthropic adapter: interruption", () => {
  it.scopedLive("interrupting mid-stream closes the connection at once", () =>
    Effect.flatMap(anthropicSetup(), (adapter) =>
      interruptsMidStream(
        adapter,
        {
          headers: sseHeaders,
          // Everything up to the first text at once, the rest 10 s later.
          chunks: [
            [messageStart(), anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }), textDelta("first")].join(""),
            textDelta("second")
          ]
        },
        "text_delta"
      )
    )
  )

  it.scopedLive("interrupting while the model thinks aborts the request", () => Effect.flatMap(anthropicSetup(), interruptsBeforeResponse))
})
