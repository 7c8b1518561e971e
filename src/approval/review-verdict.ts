/**
 * The review approval mode's verdict (SPEC A3): what the reviewer model answers, parsed strictly,
 * and the outcome the host derives from it. The reviewer only rates; the host decides, and its own
 * classification is a floor the reviewer cannot talk its way under.
 *
 * The derivation, with R the effective risk and A the reviewer's user_authorization:
 *
 *   R \ A    low    medium  high
 *   low      deny   allow   allow
 *   medium   deny   ask     allow
 *   high     deny   deny    allow
 *
 * - low authorization is always denied ("deny for low authorization"), whatever the risk;
 * - "high risk the user explicitly asked for" is high risk with high authorization; high risk with
 *   anything less is "harm the user did not ask for" and denied;
 * - the one remaining cell, medium risk with medium authorization, asks the operator.
 *
 * Floors: R is the highest of the reviewer's risk_level, the host's risk, and the risk the host's
 * authority implies (read → low, write → medium, execute → medium): a call that changes files or
 * runs code is never low risk, even when a tool's own classifier says so. A host risk of forbidden
 * is denied before anything else.
 */
import * as Either from "effect/Either"
import type { Authority, Classification, Risk } from "./classification.ts"
import { maxRisk } from "./classification.ts"
import { messageOf } from "../text/error-text.ts"
import { jsonPreview } from "../text/clip.ts"

export const reviewLevels = ["low", "medium", "high"] as const
export type ReviewLevel = (typeof reviewLevels)[number]

export interface ReviewVerdict {
  readonly risk_level: ReviewLevel
  readonly user_authorization: ReviewLevel
  readonly reason: string
}

export type ReviewOutcome = "allow" | "deny" | "ask"

const verdictKeys: ReadonlyArray<string> = ["risk_level", "user_authorization", "reason"]

const isLevel = (value: unknown): value is ReviewLevel => typeof value === "string" && (reviewLevels as ReadonlyArray<string>).includes(value)

const describeValue = (value: unknown): string => {
  if (value === undefined) return "missing"
  return jsonPreview(value, 41)
}

/** One JSON object alone, or inside exactly one ```json (or bare ```) fence with nothing around it. */
const fenced = /^```(?:json|JSON)?\s([\s\S]*?)```$/

/**
 * The verdict in a reviewer's answer, or what is wrong with the answer, in a sentence the reviewer
 * can act on when asked again. Strict: nothing but the object (or the object in one fence), exactly
 * the three keys, levels spelled exactly, a reason that says something.
 */
export const parseReviewVerdict = (answer: string): Either.Either<ReviewVerdict, string> => {
  const text = answer.trim()
  if (text === "") return Either.left("the answer was empty")
  let body = text
  if (text.startsWith("```")) {
    const match = fenced.exec(text)
    if (match === null || (match[1] ?? "").includes("```")) return Either.left("the answer must be the JSON object alone, or the object inside one ```json fence with nothing around it")
    body = (match[1] ?? "").trim()
  }
  if (!body.startsWith("{") || !body.endsWith("}")) {
    return Either.left("the answer must be one JSON object and nothing else (no text before or after it)")
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch (error) {
    return Either.left(`the answer is not valid JSON (${messageOf(error)})`)
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return Either.left("the answer must be a JSON object")
  const record = parsed as Record<string, unknown>
  const extra = Object.keys(record).filter((key) => !verdictKeys.includes(key))
  if (extra.length > 0) {
    return Either.left(`the object has keys it must not have (${extra.join(", ")}); use exactly risk_level, user_authorization and reason`)
  }
  const risk = record["risk_level"]
  if (!isLevel(risk)) return Either.left(`risk_level must be "low", "medium" or "high" (it was ${describeValue(risk)})`)
  const authorization = record["user_authorization"]
  if (!isLevel(authorization)) {
    return Either.left(`user_authorization must be "low", "medium" or "high" (it was ${describeValue(authorization)})`)
  }
  const reason = record["reason"]
  if (typeof reason !== "string" || reason.trim() === "") {
    return Either.left(`reason must be a non-empty string (it was ${describeValue(reason)})`)
  }
  return Either.right({ risk_level: risk, user_authorization: authorization, reason: reason.trim() })
}

/** The least risk a call of this authority can have in review: changing files or running code is never low. */
export const authorityRiskFloor = (authority: Authority): ReviewLevel => (authority === "read" ? "low" : "medium")

/** The risk the outcome is derived from: the reviewer's, raised to the host's floors. */
export const effectiveRisk = (verdict: ReviewVerdict, classification: Pick<Classification, "risk" | "authority">): Risk =>
  maxRisk(verdict.risk_level, classification.risk, authorityRiskFloor(classification.authority))

/** SPEC A3, as the table at the top of this file. Pure: the authorize step acts on it. */
export const reviewOutcome = (verdict: ReviewVerdict, classification: Pick<Classification, "risk" | "authority">): ReviewOutcome => {
  const risk = effectiveRisk(verdict, classification)
  if (risk === "forbidden") return "deny"
  const authorization = verdict.user_authorization
  if (authorization === "low") return "deny"
  switch (risk) {
    case "low":
      return "allow"
    case "medium":
      return authorization === "high" ? "allow" : "ask"
    case "high":
      return authorization === "high" ? "allow" : "deny"
  }
}
