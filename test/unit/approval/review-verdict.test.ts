/** The reviewer's verdict (SPEC A3): strict parsing, and the outcome the host derives with its floors. */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import type { Authority, Risk } from "../../../src/approval/classification.ts"
import {
  effectiveRisk,
  parseReviewVerdict,
  reviewOutcome,
  type ReviewLevel,
  type ReviewOutcome,
  type ReviewVerdict
} from "../../../src/approval/review-verdict.ts"

const verdict = (risk_level: ReviewLevel, user_authorization: ReviewLevel): ReviewVerdict => ({ risk_level, user_authorization, reason: "r" })

describe("parseReviewVerdict", () => {
  const valid = { risk_level: "medium", user_authorization: "high", reason: "The operator asked to run the tests." }

  it.each([
    ["a bare object", JSON.stringify(valid)],
    ["an object with whitespace around it", `\n  ${JSON.stringify(valid, null, 2)}\n\n`],
    ["an object in a ```json fence", "```json\n" + JSON.stringify(valid, null, 2) + "\n```"],
    ["an object in a bare ``` fence", "```\n" + JSON.stringify(valid) + "\n```"],
    ["an object in a fence without a final newline", "```json\n" + JSON.stringify(valid) + "```"],
    ["keys in another order", JSON.stringify({ reason: valid.reason, user_authorization: "high", risk_level: "medium" })]
  ])("takes %s", (_, text) => {
    expect(parseReviewVerdict(text)).toEqual(Either.right(valid))
  })

  it("trims the reason", () => {
    expect(parseReviewVerdict(JSON.stringify({ ...valid, reason: "  asked for it \n" }))).toEqual(Either.right({ ...valid, reason: "asked for it" }))
  })

  it.each([
    ["an empty answer", "", /empty/],
    ["prose", "This looks fine to me.", /one JSON object and nothing else/],
    ["text before the object", `Here you go: ${JSON.stringify(valid)}`, /one JSON object and nothing else/],
    ["text after the object", `${JSON.stringify(valid)}\nHope that helps.`, /one JSON object and nothing else/],
    ["text around a fence", "Verdict:\n```json\n" + JSON.stringify(valid) + "\n```", /one JSON object and nothing else/],
    ["text after a fence", "```json\n" + JSON.stringify(valid) + "\n```\nDone.", /one ```json fence/],
    ["two fences", "```json\n" + JSON.stringify(valid) + "\n```\n```json\n" + JSON.stringify(valid) + "\n```", /one ```json fence/],
    ["an unclosed fence", "```json\n" + JSON.stringify(valid), /one ```json fence/],
    ["another language's fence", "```yaml\nrisk_level: low\n```", /one ```json fence/],
    ["invalid JSON", '{"risk_level": "low", "user_authorization": "high", reason: "x"}', /not valid JSON/],
    ["two objects", `${JSON.stringify(valid)} ${JSON.stringify(valid)}`, /not valid JSON/],
    ["an array", `[${JSON.stringify(valid)}]`, /one JSON object/],
    ["a missing risk_level", JSON.stringify({ user_authorization: "high", reason: "x" }), /risk_level must be .* \(it was missing\)/],
    ["a capitalised level", JSON.stringify({ ...valid, risk_level: "Low" }), /risk_level must be "low", "medium" or "high" \(it was "Low"\)/],
    ["an unknown level", JSON.stringify({ ...valid, user_authorization: "none" }), /user_authorization must be .* \(it was "none"\)/],
    ["a numeric level", JSON.stringify({ ...valid, risk_level: 1 }), /risk_level must be .* \(it was 1\)/],
    ["a missing reason", JSON.stringify({ risk_level: "low", user_authorization: "high" }), /reason must be a non-empty string \(it was missing\)/],
    ["a blank reason", JSON.stringify({ ...valid, reason: "  " }), /reason must be a non-empty string/],
    ["a reason that is not a string", JSON.stringify({ ...valid, reason: ["x"] }), /reason must be a non-empty string \(it was \["x"\]\)/],
    ["an extra key", JSON.stringify({ ...valid, confidence: 0.9 }), /keys it must not have \(confidence\)/],
    ["an outcome of its own", JSON.stringify({ ...valid, outcome: "allow" }), /keys it must not have \(outcome\)/]
  ])("refuses %s, saying what is wrong", (_, text, problem) => {
    const parsed = parseReviewVerdict(text)
    expect(Either.isLeft(parsed)).toBe(true)
    if (Either.isLeft(parsed)) expect(parsed.left).toMatch(problem)
  })
})

describe("reviewOutcome", () => {
  // The host classification that imposes no floor: a low-risk read.
  const noFloor = { risk: "low" as const, authority: "read" as const }

  // SPEC A3: rows are the reviewer's risk, columns its user_authorization.
  const table: ReadonlyArray<readonly [ReviewLevel, ReviewLevel, ReviewOutcome]> = [
    ["low", "low", "deny"],
    ["low", "medium", "allow"],
    ["low", "high", "allow"],
    ["medium", "low", "deny"],
    ["medium", "medium", "ask"],
    ["medium", "high", "allow"],
    ["high", "low", "deny"],
    ["high", "medium", "deny"],
    ["high", "high", "allow"]
  ]

  it.each(table)("risk %s with %s authorization → %s", (risk, authorization, outcome) => {
    expect(reviewOutcome(verdict(risk, authorization), noFloor)).toBe(outcome)
  })

  // Host risk is a floor: the outcome is the table's at the higher of the two risks.
  const levels: ReadonlyArray<ReviewLevel> = ["low", "medium", "high"]
  const rank = (level: ReviewLevel) => levels.indexOf(level)
  const expected = (risk: ReviewLevel, authorization: ReviewLevel): ReviewOutcome =>
    table.find(([r, a]) => r === risk && a === authorization)?.[2] ?? "ask"
  const floorCases = levels.flatMap((reviewerRisk) =>
    levels.flatMap((hostRisk) => levels.map((authorization) => [reviewerRisk, hostRisk, authorization] as const))
  )

  it.each(floorCases)("reviewer risk %s over host risk %s with %s authorization follows the higher risk", (reviewerRisk, hostRisk, authorization) => {
    const floor = rank(reviewerRisk) >= rank(hostRisk) ? reviewerRisk : hostRisk
    expect(reviewOutcome(verdict(reviewerRisk, authorization), { risk: hostRisk, authority: "read" })).toBe(expected(floor, authorization))
  })

  it("lets the reviewer raise the risk above the host's", () => {
    expect(reviewOutcome(verdict("high", "medium"), { risk: "low", authority: "read" })).toBe("deny")
    expect(effectiveRisk(verdict("high", "medium"), { risk: "low", authority: "read" })).toBe("high")
  })

  it("never lets the reviewer lower the risk below the host's", () => {
    // The reviewer calls reading a file outside the workspace low risk; the host said high.
    expect(reviewOutcome(verdict("low", "medium"), { risk: "high", authority: "read" })).toBe("deny")
    expect(effectiveRisk(verdict("low", "high"), { risk: "high", authority: "read" })).toBe("high")
  })

  // Host authority is a floor too: writing or executing is at least medium risk.
  const authorityCases: ReadonlyArray<readonly [Authority, ReviewLevel, ReviewLevel, ReviewOutcome]> = [
    ["read", "low", "medium", "allow"],
    ["write", "low", "medium", "ask"],
    ["write", "low", "high", "allow"],
    ["write", "low", "low", "deny"],
    ["execute", "low", "medium", "ask"],
    ["execute", "low", "high", "allow"],
    ["execute", "high", "medium", "deny"]
  ]

  it.each(authorityCases)("host authority %s with reviewer risk %s and %s authorization → %s", (authority, risk, authorization, outcome) => {
    expect(reviewOutcome(verdict(risk, authorization), { risk: "low", authority })).toBe(outcome)
  })

  it.each(levels.flatMap((risk) => levels.map((authorization) => [risk, authorization] as const)))(
    "denies a forbidden call whatever the reviewer says (risk %s, authorization %s)",
    (risk, authorization) => {
      for (const authority of ["read", "write", "execute"] as const) {
        expect(reviewOutcome(verdict(risk, authorization), { risk: "forbidden" satisfies Risk, authority })).toBe("deny")
      }
    }
  )
})
