import { describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { responsesFrame, responsesSetup, sseHeaders } from "./openai-responses-setup.ts"
import { interruptsBeforeResponse, interruptsMidStream } from "./interruption.ts"

const message = { id: "msg_1", type: "message", status: "in_progress", content: [], role: "assistant" }
const textDelta = (delta: string, sequence: number) =>
  responsesFrame({
    type: "response.output_text.delta",
    sequence_number: sequence,
    item_id: "msg_1",
    output_index: 0,
    content_index: 0,
    delta,
    logprobs: []
  })

describe("openai-responses adapter: interruption", () => {
  it.scopedLive("interrupting mid-stream closes the connection at once", () =>
    Effect.flatMap(responsesSetup(), (adapter) =>
      interruptsMidStream(
        adapter,
        {
          headers: sseHeaders,
          // The first chunk holds several events, up to the first text; the next comes 10 s later.
          chunks: [
            [
              responsesFrame({ type: "response.created", sequence_number: 0, response: { id: "resp_1", status: "in_progress", output: [] } }),
              responsesFrame({ type: "response.output_item.added", sequence_number: 1, output_index: 0, item: message }),
              textDelta("first", 2)
            ].join(""),
            textDelta("second", 3)
          ]
        },
        "text_delta"
      )
    )
  )

  it.scopedLive("interrupting while the model thinks aborts the request", () => Effect.flatMap(responsesSetup(), interruptsBeforeResponse))
})
