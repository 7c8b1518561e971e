/**
 * A side question (SPEC S3, `/side QUESTION`): one request to the session's model with the
 * current context (the system text and the model's view of the transcript) plus the question.
 * Nothing is run or appended; only what it cost joins the session's usage. The tool definitions are still sent: a history holding tool
 * calls is refused by some providers without them, and the same prefix reuses the prompt cache;
 * the model is told not to call any, and a call it makes anyway is ignored.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { newItemId } from "../session/ids.ts"
import type { Usage } from "../session/items.ts"
import { Providers } from "../providers/providers.ts"
import { sideRequest } from "./side-request.ts"
import { chargedTo } from "./usage-meter.ts"
import { heldImages, requestImages } from "./request-images.ts"
import { PluginLoader } from "../plugins/plugin-loader.ts"
import { contextView } from "./context-view.ts"
import { Conversation } from "./conversation.ts"
import { Toolbox, toolDefinitions } from "./toolbox.ts"

export class SideQuestionError extends Schema.TaggedError<SideQuestionError>()("SideQuestionError", {
  message: Schema.String
}) {}

export interface SideAnswer {
  readonly text: string
  /** "provider/model" that answered. */
  readonly model: string
  readonly usage: Usage | undefined
}

export const sideQuestionText = (question: string): string =>
  "[Side question from the operator: answer it from the conversation so far, in plain text, without calling any tool. " +
  `The question and your answer are not kept in the conversation.]\n\n${question}`

export const askSideQuestion = (question: string) =>
  Effect.gen(function* () {
    const asked = question.trim()
    if (asked === "") return yield* new SideQuestionError({ message: "/side needs a question, e.g. /side what does the retry helper do?" })
    const conversation = yield* Conversation
    // While a turn runs, the transcript can end in a tool call without its result, which no provider accepts.
    if (yield* conversation.turnRunning) return yield* new SideQuestionError({ message: "/side waits for the running turn to end" })
    const { entry, client } = (yield* Providers).current()
    const toolbox = yield* Toolbox
    const doc = yield* conversation.document
    const items = [...contextView(doc.items).items, { _tag: "user" as const, id: newItemId(), text: sideQuestionText(asked) }]
    const images = yield* requestImages(items, entry)
    const hooks = (yield* PluginLoader).hooks
    const { text, calledTool, usage } = yield* sideRequest(
      chargedTo(conversation, { current: () => ({ entry, client }) }),
      { system: doc.system ?? "", items, tools: toolDefinitions(toolbox.catalog(doc.mode)), ...(images === undefined ? {} : { images }) },
      { hooks, purpose: "side", held: heldImages(doc.items) }
    )
    if (text.trim() === "") {
      return yield* new SideQuestionError({
        message: calledTool === undefined ? "the model returned an empty answer" : `the model tried to call ${calledTool} instead of answering; side questions run no tools`
      })
    }
    return { text: text.trim(), model: entry.ref, usage } satisfies SideAnswer
  })
