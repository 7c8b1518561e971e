import { describe, expect, it } from "vitest"
import { summaryMessage } from "../../../src/engine/context-view.ts"
import type { Compaction } from "../../../src/session/items.ts"

const record = (plan?: Compaction["plan"]): Compaction => ({
  _tag: "compaction",
  id: "c1",
  summary: "SUMMARY",
  filesTouched: [],
  todos: [],
  trigger: "auto",
  ...(plan === undefined ? {} : { plan }),
  tokensBefore: 10,
  tokensAfter: 5
})

describe("the plan in the context after a compaction", () => {
  it("shows the plan's path and its step lines exactly as kept", () => {
    const steps = ["- [x] one  ", "  * [~] twö", "1. [ ] three"]
    const text = summaryMessage(record({ path: "/h/plans/s1.md", steps }), false).text
    expect(text.endsWith(`The session's plan file is /h/plans/s1.md (the plan tool shows it whole and marks its steps). Its steps when the summary was written, verbatim:\n${steps.join("\n")}`)).toBe(true)
  })

  it("says when the plan has no steps, and says nothing of a plan when there was none", () => {
    expect(summaryMessage(record({ path: "/p.md", steps: [] }), false).text).toMatch(/verbatim:\n\(it has no steps\)$/)
    expect(summaryMessage(record(), false).text).not.toContain("plan file")
  })
})
