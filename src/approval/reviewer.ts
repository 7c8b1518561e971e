/**
 * What the reviewer of the review approval mode (SPEC A3) is asked and answers. The approval policy
 * holds one; src/engine/reviewer.ts makes the live one, a side request to the session's model.
 */
import type * as Effect from "effect/Effect"
import type { Classification } from "./classification.ts"
import type { ReviewOutcome, ReviewVerdict } from "./review-verdict.ts"

export interface ReviewRequest {
  readonly toolName: string
  readonly arguments: unknown
  readonly classification: Classification
  /** The conversation so far as text (conversation-digest.ts), newest last. */
  readonly conversation: string
}

export interface ReviewResult {
  readonly outcome: ReviewOutcome
  /** The reviewer's reason, or why there is no verdict (then the outcome is "ask"). */
  readonly reason: string
  /** Undefined when the reviewer did not answer with a valid verdict in time. */
  readonly verdict: ReviewVerdict | undefined
}

export interface ReviewerShape {
  /** Never fails: every way of not getting a verdict is an "ask" with the reason. */
  readonly review: (request: ReviewRequest) => Effect.Effect<ReviewResult>
}
