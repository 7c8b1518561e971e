import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ImageBytes } from "../../../src/providers/model-client.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"
import { chatSetup, requestFor } from "./fixtures.ts"

const png: ImageBytes = { mime: "image/png", base64: "iVBORw0KGgo=" }
const jpeg: ImageBytes = { mime: "image/jpeg", base64: "/9j/4AAQ" }
const images = new Map([
  ["aaa", png],
  ["bbb", jpeg]
])
const pngPart = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }
const jpegPart = { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } }

const sentMessages = (items: ReadonlyArray<TranscriptItem>) =>
  Effect.gen(function* () {
    const { fake, model, client } = yield* chatSetup()
    fake.script([{ text: "ok" }])
    yield* Stream.runDrain(client.stream(requestFor(model, { system: "", items, images })))
    return (fake.requests[0]?.body as { readonly messages: ReadonlyArray<unknown> }).messages
  })

const viewCalls: TranscriptItem = {
  _tag: "assistant",
  id: "a1",
  text: "",
  model: "local/test-model",
  toolCalls: [
    { id: "call_1", name: "view_image", arguments: { path: "a.png" } },
    { id: "call_2", name: "read_file", arguments: { path: "notes.txt" } },
    { id: "call_3", name: "view_image", arguments: { path: "b.jpg" } }
  ]
}

describe("openai-chat adapter: images", () => {
  it.scopedLive("sends user images as image_url parts with data URLs, after the text", () =>
    Effect.gen(function* () {
      const messages = yield* sentMessages([
        {
          _tag: "user",
          id: "u1",
          text: "Compare [Image #1] with [Image #2]",
          images: [
            { sha256: "aaa", mime: "image/png", marker: "[Image #1]" },
            { sha256: "bbb", mime: "image/jpeg", marker: "[Image #2]" }
          ]
        }
      ])
      expect(messages).toEqual([
        { role: "user", content: [{ type: "text", text: "Compare [Image #1] with [Image #2]" }, pngPart, jpegPart] }
      ])
    })
  )

  it.scopedLive("leaves out an image without bytes, keeping its marker; with none left the content stays text", () =>
    Effect.gen(function* () {
      const messages = yield* sentMessages([
        {
          _tag: "user",
          id: "u1",
          text: "What is [Image #1]?",
          images: [{ sha256: "gone", mime: "image/png", marker: "[Image #1]" }]
        }
      ])
      expect(messages).toEqual([{ role: "user", content: "What is [Image #1]?" }])
    })
  )

  it.scopedLive("follows the tool messages with one user message carrying their images, naming each call", () =>
    Effect.gen(function* () {
      const messages = yield* sentMessages([
        { _tag: "user", id: "u1", text: "Look at both pictures" },
        viewCalls,
        {
          _tag: "tool_result",
          id: "r1",
          callId: "call_1",
          name: "view_image",
          text: "[Image #1]",
          images: [{ sha256: "aaa", mime: "image/png", marker: "[Image #1]" }],
          isError: false
        },
        { _tag: "tool_result", id: "r2", callId: "call_2", name: "read_file", text: "just text", isError: false },
        { _tag: "note", id: "n1", text: "a note between results" },
        {
          _tag: "tool_result",
          id: "r3",
          callId: "call_3",
          name: "view_image",
          text: "[Image #2] [Image #3]",
          images: [
            { sha256: "bbb", mime: "image/jpeg", marker: "[Image #2]" },
            { sha256: "gone", mime: "image/png", marker: "[Image #3]" }
          ],
          isError: false
        },
        { _tag: "assistant", id: "a2", text: "Both are charts.", model: "local/test-model", finishReason: "stop" }
      ])
      expect(messages.slice(1)).toEqual([
        expect.objectContaining({ role: "assistant" }),
        { role: "tool", tool_call_id: "call_1", content: "[Image #1]" },
        { role: "tool", tool_call_id: "call_2", content: "just text" },
        { role: "tool", tool_call_id: "call_3", content: "[Image #2] [Image #3]" },
        {
          role: "user",
          content: [
            { type: "text", text: "Images from the result of tool call call_1 (view_image):" },
            pngPart,
            { type: "text", text: "Images from the result of tool call call_3 (view_image):" },
            jpegPart
          ]
        },
        { role: "assistant", content: "Both are charts." }
      ])
    })
  )

  it.scopedLive("puts tool images last when the results end the transcript, and adds nothing without images", () =>
    Effect.gen(function* () {
      const withImages = yield* sentMessages([
        viewCalls,
        {
          _tag: "tool_result",
          id: "r1",
          callId: "call_1",
          name: "view_image",
          text: "[Image #1]",
          images: [{ sha256: "aaa", mime: "image/png", marker: "[Image #1]" }],
          isError: false
        }
      ])
      expect(withImages.at(-1)).toEqual({
        role: "user",
        content: [{ type: "text", text: "Images from the result of tool call call_1 (view_image):" }, pngPart]
      })
      const withoutBytes = yield* sentMessages([
        viewCalls,
        {
          _tag: "tool_result",
          id: "r1",
          callId: "call_1",
          name: "view_image",
          text: "[Image #1]",
          images: [{ sha256: "gone", mime: "image/png", marker: "[Image #1]" }],
          isError: false
        }
      ])
      expect(withoutBytes.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content: "[Image #1]" })
    })
  )
})
