/**
 * /usage: what the session has used and cost so far (every request it made: turns, titles,
 * reviews, compaction summaries, /side), split by model, and what the last turn's responses used.
 */
import * as Effect from "effect/Effect"
import { Conversation } from "../engine/conversation.ts"
import { costText, costUsage, costedText, sessionCost, tokensText, usageByModel } from "../providers/cost.ts"
import type { PriceLookup } from "../providers/pricing.ts"
import { Providers } from "../providers/providers.ts"
import type { SessionDocument } from "../session/document.ts"
import type { AssistantMessage } from "../session/items.ts"
import type { CommandContext, CommandEffect } from "./commands.ts"

/** The assistant messages since the operator's last message. */
const lastTurn = (doc: SessionDocument): ReadonlyArray<AssistantMessage> => {
  const start = doc.items.findLastIndex((item) => item._tag === "user" && item.synthetic === undefined)
  return start < 0 ? [] : doc.items.slice(start + 1).filter((item): item is AssistantMessage => item._tag === "assistant")
}

export const usageReport = (doc: SessionDocument, prices: PriceLookup): ReadonlyArray<string> => {
  const session = sessionCost(doc, prices)
  if (session.usage.inputTokens === 0 && session.usage.outputTokens === 0) return ["no model requests yet"]
  const models = Object.entries(doc.usageByModel ?? {})
  const turn = lastTurn(doc)
  return [
    `session    ${costedText(session)}`,
    ...(models.length > 1 ? models.map(([model, usage]) => `  ${model}: ${tokensText(usage)} · ${costText(costUsage({ [model]: usage }, prices))}`) : []),
    ...(turn.length > 0 ? [`last turn  ${costedText(costUsage(usageByModel(turn), prices))}`] : [])
  ]
}

export const usageCommand = (_args: string, context: CommandContext): CommandEffect =>
  Effect.gen(function* () {
    const doc = yield* (yield* Conversation).document
    const prices = (yield* Providers).price
    yield* Effect.sync(() =>
      context.print([
        ...usageReport(doc, prices),
        context.palette.dim("the session counts every request it made (turns, titles, reviews, compaction, /side); prices per million tokens from config.json pricing or the built-in table")
      ])
    )
  })
