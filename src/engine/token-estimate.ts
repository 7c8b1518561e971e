/**
 * Rough token counts, for deciding when to compact (SPEC S2). No tokenizer: about 4 characters a
 * token for English and code alike, which errs large for prose and small for dense JSON; the
 * provider's own count of the latest request, when there is one, replaces the guess for
 * everything up to that response.
 */
import type { ToolDefinition } from "../providers/model-client.ts"
import type { TranscriptItem } from "../session/items.ts"

const charsPerToken = 4
/** What providers charge for a typical screenshot-sized image. */
const imageTokens = 1_600
/** Role markers and framing per message. */
const messageOverhead = 4

export const estimateTextTokens = (text: string): number => Math.ceil(text.length / charsPerToken)

const jsonTokens = (value: unknown): number => {
  try {
    return estimateTextTokens(JSON.stringify(value) ?? "")
  } catch {
    return 0
  }
}

export const estimateItemTokens = (item: TranscriptItem): number => {
  switch (item._tag) {
    case "user":
      return messageOverhead + estimateTextTokens(item.text) + (item.images?.length ?? 0) * imageTokens
    case "assistant":
      return (
        messageOverhead +
        estimateTextTokens(item.text) +
        (item.reasoning ?? []).reduce((sum, part) => sum + estimateTextTokens(part.text), 0) +
        (item.toolCalls ?? []).reduce((sum, call) => sum + estimateTextTokens(call.name) + jsonTokens(call.arguments), 0)
      )
    case "tool_result":
      return messageOverhead + estimateTextTokens(item.text) + (item.images?.length ?? 0) * imageTokens
    case "note":
    case "compaction":
      return 0
  }
}

export const estimateItemsTokens = (items: ReadonlyArray<TranscriptItem>): number =>
  items.reduce((sum, item) => sum + estimateItemTokens(item), 0)

export interface ContextSize {
  readonly system: string
  /** What the model sees (context-view.ts), oldest first. */
  readonly items: ReadonlyArray<TranscriptItem>
  /** Responses from this index on were measured on this very context; earlier ones on a longer one. */
  readonly measuredFrom: number
  readonly tools: ReadonlyArray<ToolDefinition>
}

/** The input tokens of a request made of this context now. */
export const estimateContextTokens = (context: ContextSize): number => {
  for (let index = context.items.length - 1; index >= context.measuredFrom; index--) {
    const item = context.items[index]
    if (item?._tag === "assistant" && item.usage !== undefined && item.incomplete !== true) {
      // The provider counted everything before this response; the response and what followed are new.
      return item.usage.inputTokens + item.usage.outputTokens + estimateItemsTokens(context.items.slice(index + 1))
    }
  }
  return estimateTextTokens(context.system) + jsonTokens(context.tools) + estimateItemsTokens(context.items)
}
