/**
 * The reviewer of the review approval mode (SPEC A3): a side request to the session's model that
 * rates one tool call. It has no tools, it is not recorded in the transcript, and it sees only the
 * review system text (the resolver's, attachments included, never the workspace instructions) and
 * one user message, the review.user template bound to the call. Its answer is a small JSON verdict
 * the host parses strictly; one malformed answer is sent back once with what was wrong, and a
 * second one, a failed request or a review slower than the timeout all come out as "ask": a
 * reviewer that cannot answer never lets a call through.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { ReviewerShape, ReviewRequest, ReviewResult } from "../approval/reviewer.ts"
import { parseReviewVerdict, reviewOutcome } from "../approval/review-verdict.ts"
import { bindPlaceholders, type PlaceholderValues } from "../prompts/placeholders.ts"
import { newItemId } from "../session/ids.ts"
import type { TranscriptItem } from "../session/items.ts"
import type { ProvidersShape } from "../providers/providers.ts"
import type { SidePrompts } from "../prompts/prompt-resolver.ts"
import { sideRequest } from "./side-request.ts"
import { argumentsText, truncateText } from "./conversation-digest.ts"
import { ReviewFailed } from "./errors.ts"
import { messageOf } from "../text/error-text.ts"


export interface ReviewerOptions {
  /** The session's model; read at each review, so /model applies to the next one. */
  readonly activeModel: Pick<ProvidersShape, "current">
  /**
   * Read once per review: the review system text as composed now (named prompt + enabled review
   * attachments), the review.user template (its slots are bound here) and the host values bound
   * with it (the six review slots win).
   */
  readonly prompts: Effect.Effect<SidePrompts>
  /** The whole review, the retry included (default 30 s). */
  readonly timeoutMs?: number | undefined
  /** Where a placeholder that could not be bound is reported. */
  readonly note?: ((text: string) => void) | undefined
}

export const defaultReviewTimeoutMs = 30_000

/** The tool arguments as the reviewer sees them: JSON, a huge write's content cut. */
const maxArgumentChars = 8_000

/** The review.user template with the call's slots bound (SPEC P2: review user adds these six). */
export const reviewUserText = (
  template: string,
  request: ReviewRequest,
  note?: (text: string) => void,
  hostValues: PlaceholderValues = new Map()
): string =>
  bindPlaceholders(
    template,
    new Map([
      ...hostValues,
      ["conversation", request.conversation],
      ["tool_name", request.toolName],
      ["tool_arguments", truncateText(argumentsText(request.arguments), maxArgumentChars)],
      ["host_risk", request.classification.risk],
      ["host_authority", request.classification.authority],
      ["classification_summary", request.classification.summary]
    ]),
    note
  )

const correction = (problem: string): string =>
  `Your answer could not be used: ${problem}. Answer again with exactly one JSON object and nothing else: ` +
  `{"risk_level": "low|medium|high", "user_authorization": "low|medium|high", "reason": "one sentence"}`

const ask = (reason: string): ReviewResult => ({ outcome: "ask", reason, verdict: undefined })

export const makeReviewer = (options: ReviewerOptions): ReviewerShape => ({
  review: (request) => {
    const attempt = Effect.gen(function* () {
      const { system, userTemplate, hostValues } = yield* options.prompts
      const user: TranscriptItem = { _tag: "user", id: newItemId(), text: reviewUserText(userTemplate, request, options.note, hostValues) }
      const first = yield* sideRequest(options.activeModel, { system, items: [user], tools: [] })
      const firstParsed =
        first.calledTool === undefined ? parseReviewVerdict(first.text) : Either.left(`it called the tool ${first.calledTool}; there are no tools here`)
      if (Either.isRight(firstParsed)) return firstParsed.right
      const retryItems: ReadonlyArray<TranscriptItem> = [
        user,
        { _tag: "assistant", id: newItemId(), text: first.text, model: first.model },
        { _tag: "user", id: newItemId(), text: correction(firstParsed.left) }
      ]
      const second = yield* sideRequest(options.activeModel, { system, items: retryItems, tools: [] })
      const secondParsed =
        second.calledTool === undefined ? parseReviewVerdict(second.text) : Either.left(`it called the tool ${second.calledTool}; there are no tools here`)
      if (Either.isRight(secondParsed)) return secondParsed.right
      return yield* new ReviewFailed({ message: `the reviewer answered twice without a usable verdict (${secondParsed.left})` })
    })
    const timeoutMs = options.timeoutMs ?? defaultReviewTimeoutMs
    return attempt.pipe(
      Effect.map((verdict): ReviewResult => ({ outcome: reviewOutcome(verdict, request.classification), reason: verdict.reason, verdict })),
      Effect.timeoutFail({ duration: Duration.millis(timeoutMs), onTimeout: () => new ReviewFailed({ message: `the reviewer did not answer within ${Math.round(timeoutMs / 100) / 10} s` }) }),
      Effect.catchAll((failure) => Effect.succeed(ask(failure._tag === "ReviewFailed" ? failure.message : `the reviewer request failed: ${failure.message}`))),
      // A defect in an adapter is a reviewer that did not answer, not a crash of the turn.
      Effect.catchAllDefect((defect) => Effect.succeed(ask(`the reviewer failed: ${messageOf(defect)}`)))
    )
  }
})
