/**
 * The approval policy (SPEC A2): from the approval mode and the host's classification of a call,
 * whether it runs, is refused, or needs a person. A pure function, so every rule is a row in a table test.
 */
import type { Classification } from "./classification.ts"

export const approvalModes = ["plan", "default", "edit", "review", "audit", "full"] as const
export type ApprovalMode = (typeof approvalModes)[number]

export const approvalModeMeanings: Readonly<Record<ApprovalMode, string>> = {
  plan: "read-only calls inside the workspace run; everything else is refused",
  default: "reads inside the workspace run; everything else asks",
  edit: "reads and the built-in edit/write tools inside the workspace run; the rest asks",
  review: "a reviewer model decides each call that is not a plain read",
  audit: "every call asks, reads included",
  full: "everything runs except forbidden calls (refused) and writes outside the workspace or to protected files (they ask)"
}

export type Decision =
  | { readonly _tag: "Allow" }
  | { readonly _tag: "Deny"; readonly reason: string }
  | { readonly _tag: "Ask" }

export interface CallFacts {
  readonly classification: Classification
  /** A built-in tool whose every write goes through the path fence (edit, write). */
  readonly builtinEdit: boolean
  /** A built-in tool whose only write is the session's own file at a path Crystal chose (the plan tool; ToolSpec.writesSessionFile). */
  readonly sessionFile?: boolean | undefined
}

/** The call's only write is the session's own file: its spec says so and it executes nothing. */
export const onlySessionFile = (writesSessionFile: boolean | undefined, classification: Classification): boolean =>
  writesSessionFile === true && classification.authority !== "execute"

const allow: Decision = { _tag: "Allow" }
const ask: Decision = { _tag: "Ask" }

const isContainedRead = (c: Classification): boolean =>
  c.authority === "read" && c.scope !== "outside" && (c.risk === "low" || c.risk === "medium")

const writesOutside = (c: Classification): boolean =>
  c.authority !== "read" && (c.scope === "outside" || c.paths.some((path) => path.access === "write" && path.scope === "outside"))

export const decide = (mode: ApprovalMode, facts: CallFacts): Decision => {
  const decision = decideByMode(mode, facts)
  return decision._tag === "Allow" && facts.classification.ask === true ? ask : decision
}

const decideByMode = (mode: ApprovalMode, facts: CallFacts): Decision => {
  const c = facts.classification
  if (c.risk === "forbidden") return { _tag: "Deny", reason: `forbidden: ${c.summary}` }
  // Crystal's own file at Crystal's path, the model choosing only the words: no mode guards anything
  // by asking about reading or writing it, except audit, where every call asks.
  if (onlySessionFile(facts.sessionFile, c) && mode !== "audit") return allow
  switch (mode) {
    case "plan":
      return isContainedRead(c) ? allow : { _tag: "Deny", reason: "the plan approval mode only lets read-only calls inside the workspace run" }
    case "default":
      return isContainedRead(c) ? allow : ask
    case "edit":
      return isContainedRead(c) || (facts.builtinEdit && c.authority === "write" && c.scope !== "outside" && !writesOutside(c) && c.protectedWrite === undefined) ? allow : ask
    case "audit":
      return ask
    case "full":
      return writesOutside(c) || c.protectedWrite !== undefined ? ask : allow
    case "review":
      // The reviewer decides; until it answers, a call that is not a contained read waits for it.
      return isContainedRead(c) ? allow : ask
  }
}

/** The least permissive mode that would have let this call run without asking, for denial messages. */
export const modeThatWouldAllow = (facts: CallFacts): ApprovalMode | undefined =>
  (["plan", "default", "edit", "full"] as const).find((mode) => decide(mode, facts)._tag === "Allow")
