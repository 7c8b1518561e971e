import { describe, expect, it } from "vitest"
import { numberedSteps, planSteps, setStepStatuses } from "../../../src/plans/steps.ts"

const plan = [
  "# Parser",
  "",
  "Why: the old one drops comments.",
  "",
  "- [ ] write the tokenizer",
  "  * [~] nested: keep positions",
  "1. [x] remove the old parser",
  "2) [X] update callers\r",
  "- not a step",
  "- [?] not a step either",
  "    + [ ] indented with plus",
  ""
].join("\n")

describe("plan steps", () => {
  it("reads the task lines in order, with every list marker and indentation, ignoring other lines", () => {
    expect(planSteps(plan)).toEqual([
      { number: 1, status: "pending", line: "- [ ] write the tokenizer" },
      { number: 2, status: "in_progress", line: "  * [~] nested: keep positions" },
      { number: 3, status: "done", line: "1. [x] remove the old parser" },
      { number: 4, status: "done", line: "2) [X] update callers" },
      { number: 5, status: "pending", line: "    + [ ] indented with plus" }
    ])
  })

  it("changes only the status characters: every other byte stays as written", () => {
    const changed = setStepStatuses(plan, [
      { number: 1, status: "done" },
      { number: 2, status: "pending" },
      { number: 5, status: "in_progress" }
    ])
    expect(changed._tag).toBe("Changed")
    const text = changed._tag === "Changed" ? changed.text : ""
    expect(text.length).toBe(plan.length)
    const differing = [...text].flatMap((char, at) => (char === plan[at] ? [] : [at]))
    expect(differing.map((at) => text[at])).toEqual(["x", " ", "~"])
    expect(planSteps(text).map((step) => step.status)).toEqual(["done", "pending", "done", "done", "in_progress"])
    // The CRLF line keeps its carriage return.
    expect(text).toContain("2) [X] update callers\r\n")
  })

  it("says which step does not exist, and when a plan has none", () => {
    expect(setStepStatuses(plan, [{ number: 6, status: "done" }])).toEqual({ _tag: "Problem", problem: "there is no step 6; the plan has steps 1 to 5" })
    expect(setStepStatuses(plan, [{ number: 0, status: "done" }])._tag).toBe("Problem")
    expect(setStepStatuses("just prose\n", [{ number: 1, status: "done" }])).toEqual({
      _tag: "Problem",
      problem: "the plan has no steps (lines like `- [ ] step`)"
    })
  })

  it("numbers the steps as the plan tool lists them", () => {
    expect(numberedSteps(plan).split("\n")).toEqual([
      "1. - [ ] write the tokenizer",
      "2. * [~] nested: keep positions",
      "3. 1. [x] remove the old parser",
      "4. 2) [X] update callers",
      "5. + [ ] indented with plus"
    ])
  })
})
