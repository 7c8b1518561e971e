/**
 * The session's Renderer: the view the entry point gave (crystal run's text or JSON lines, the
 * TUI's turn view), with the session's secrets redacted in every text it is handed — the model's
 * message, a tool call's arguments and name, an approval's summary, progress, results, notes,
 * retries and failures. The streamed deltas are the exception: they come redacted from the turn
 * (turn-stream.ts), which knows where a response's stream ends and so what it may hold back.
 */
import * as Effect from "effect/Effect"
import type { RedactorShape } from "../secrets/redactor.ts"
import { redactText } from "../secrets/redact.ts"
import { redactValue } from "../secrets/redact-value.ts"
import type { Secrets } from "../secrets/secrets.ts"
import { redactItem } from "../session/redact-document.ts"
import type { RendererShape } from "./renderer.ts"

const keepOpaque: ReadonlySet<string> = new Set(["opaque"])

export const redactingRenderer = (view: RendererShape, redactor: Pick<RedactorShape, "secrets">): RendererShape => {
  const redacted =
    <A extends ReadonlyArray<unknown>>(render: (...args: A) => Effect.Effect<void>, redact: (secrets: Secrets, ...args: A) => A) =>
    (...args: A) =>
      Effect.flatMap(redactor.secrets, (secrets) => render(...redact(secrets, ...args)))
  return {
    ...view,
    assistantMessage: redacted(view.assistantMessage, (secrets, message) => [redactItem(secrets, message)]),
    toolStarted: redacted(view.toolStarted, (secrets, call) => [redactValue(secrets, call, { keep: keepOpaque })]),
    approval: redacted(view.approval, (secrets, event) => [redactValue(secrets, event)]),
    toolProgress: redacted(view.toolProgress, (secrets, event) => [redactValue(secrets, event)]),
    toolFinished: redacted(view.toolFinished, (secrets, result, durationMs) => [redactValue(secrets, result), durationMs]),
    retrying: redacted(view.retrying, (secrets, info) => [redactValue(secrets, info)]),
    note: redacted(view.note, (secrets, text) => [redactText(secrets, text)]),
    failed: redacted(view.failed, (secrets, message) => [redactText(secrets, message)]),
    // A subagent's events are redacted the same way (issue 26).
    child: view.child === undefined ? undefined : (path) => redactingRenderer(view.child?.(path) ?? view, redactor)
  }
}
