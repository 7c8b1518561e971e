/**
 * The operator's own message is never summarised: one too large for the model is refused before
 * it enters the transcript, with its size and the model's limit. "Too large" means a request
 * holding only the system text, the tool definitions and this message would already pass the
 * share of the context window at which the conversation is compacted (the whole window when
 * compaction is off): compacting could then only make room by summarising the message itself.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { UserMessage } from "../session/items.ts"
import { Providers } from "../providers/providers.ts"
import { Compactor } from "./compactor.ts"
import { Conversation } from "./conversation.ts"
import { estimateContextTokens, estimateItemTokens } from "./token-estimate.ts"
import { Toolbox, toolDefinitions } from "./toolbox.ts"
import { formatBytes } from "../text/bytes.ts"

/** A message the model cannot take. Exit code 1: the turn failed (nothing was sent or saved). */
export class MessageTooLarge extends Schema.TaggedError<MessageTooLarge>()("MessageTooLarge", {
  message: Schema.String
}) {}

const tokensText = (tokens: number): string => tokens.toLocaleString("en-US")

/** Fails with MessageTooLarge when `message` cannot be sent without summarising it. */
export const refuseOversizedMessage = (message: UserMessage) =>
  Effect.gen(function* () {
    const { entry } = (yield* Providers).current()
    const compactor = yield* Effect.serviceOption(Compactor)
    const policy = Option.isSome(compactor) && compactor.value.settings.auto ? compactor.value.settings : undefined
    const window = entry.capabilities.contextWindow
    const limit = policy === undefined ? window : Math.floor(window * policy.threshold)
    const ownTokens = estimateItemTokens(message)
    // Cheap first: most messages are far below any window.
    if (ownTokens * 2 < limit) return
    const doc = yield* (yield* Conversation).document
    const toolbox = yield* Toolbox
    const alone = estimateContextTokens({ system: doc.system ?? "", items: [message], measuredFrom: 1, tools: toolDefinitions(toolbox.catalog(doc.mode)) })
    if (alone <= limit) return
    const bytes = Buffer.byteLength(message.text, "utf8")
    const share = policy === undefined ? "" : ` (${Math.round(policy.threshold * 100)}% of its ${tokensText(window)}-token context window, compaction.threshold)`
    return yield* new MessageTooLarge({
      message:
        `the message is ${formatBytes(bytes)} (about ${tokensText(ownTokens)} tokens); with the system prompt and tools it needs about ${tokensText(alone)} tokens, ` +
        `more than ${entry.ref} takes${policy === undefined ? ` (its ${tokensText(window)}-token context window)` : ` before compacting${share}`}; ` +
        `it was not sent: put the text in a file in the workspace and ask for it to be read`
    })
  })
