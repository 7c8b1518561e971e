/**
 * What of one response's stream the renderer is shown: its text and reasoning deltas with the
 * session's secrets redacted, also when a secret arrives split across deltas (secrets/
 * text-stream.ts holds back what could begin one). The turn calls `end` however the stream ends
 * (answered, failed, cancelled), so what was held back is shown, redacted, before anything else.
 * The secrets are read with the first delta: the request is on its way by then.
 */
import * as Effect from "effect/Effect"
import type { ModelEvent } from "../providers/model-client.ts"
import type { Secrets } from "../secrets/secrets.ts"
import { redactingText, type RedactingText } from "../secrets/text-stream.ts"
import type { RendererShape } from "./renderer.ts"

export interface ShownStream {
  readonly show: (event: ModelEvent) => Effect.Effect<void>
  /** Shows what was held back; the next response starts afresh. */
  readonly end: Effect.Effect<void>
}

type Render = (text: string) => Effect.Effect<void>

export const shownStream = (renderer: Pick<RendererShape, "textDelta" | "reasoningDelta">, secrets: Effect.Effect<Secrets>): ShownStream => {
  let known: Secrets | undefined
  let text: RedactingText | undefined
  let reasoning: RedactingText | undefined
  const render = (to: Render, shown: string) => (shown === "" ? Effect.void : to(shown))
  /** The secrets, read once per response. */
  const withSecrets = <A>(use: (secrets: Secrets) => Effect.Effect<A>) =>
    known === undefined ? Effect.flatMap(secrets, (read) => use((known = read))) : use(known)
  const endReasoning = Effect.suspend(() => {
    const rest = reasoning?.end() ?? ""
    reasoning = undefined
    return render(renderer.reasoningDelta, rest)
  })
  return {
    show: (event) => {
      switch (event.type) {
        case "text_delta":
          return withSecrets((read) => render(renderer.textDelta, (text ??= redactingText(read)).push(event.text)))
        case "reasoning_delta":
          return withSecrets((read) => render(renderer.reasoningDelta, (reasoning ??= redactingText(read)).push(event.text)))
        case "reasoning_end":
          return endReasoning
        default:
          return Effect.void
      }
    },
    end: Effect.zipRight(
      endReasoning,
      Effect.suspend(() => {
        const rest = text?.end() ?? ""
        text = undefined
        return render(renderer.textDelta, rest)
      })
    )
  }
}
