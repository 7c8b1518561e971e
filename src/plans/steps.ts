/**
 * A plan's steps: its Markdown task lines, `- [ ] step` (pending), `- [~] step` (in progress),
 * `- [x] step` (done), with `*`, `+` or `1.` as the marker and any indentation. They are read and
 * changed in place, one character each, so every other byte of the plan stays as it was written:
 * what compaction keeps of them is the lines themselves.
 */

export const stepStatuses = ["pending", "in_progress", "done"] as const
export type StepStatus = (typeof stepStatuses)[number]

const marks: Readonly<Record<StepStatus, string>> = { pending: " ", in_progress: "~", done: "x" }

/** The list marker, the space after it and the opening bracket; the status character follows. */
const stepStart = /^([ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[)([ ~xX])\]/

export interface PlanStep {
  /** 1-based, in the order the steps appear. */
  readonly number: number
  readonly status: StepStatus
  /** The line as written (without its line break). */
  readonly line: string
}

const statusOf = (mark: string): StepStatus => (mark === " " ? "pending" : mark === "~" ? "in_progress" : "done")

export const planSteps = (text: string): ReadonlyArray<PlanStep> => {
  const steps: Array<PlanStep> = []
  for (const line of text.split("\n")) {
    const found = stepStart.exec(line)
    if (found !== null) steps.push({ number: steps.length + 1, status: statusOf(found[2] ?? " "), line: line.endsWith("\r") ? line.slice(0, -1) : line })
  }
  return steps
}

export interface StepChange {
  readonly number: number
  readonly status: StepStatus
}

/** The plan with the given steps' marks changed, or what is wrong with the changes (for the model). */
export const setStepStatuses = (
  text: string,
  changes: ReadonlyArray<StepChange>
): { readonly _tag: "Changed"; readonly text: string } | { readonly _tag: "Problem"; readonly problem: string } => {
  const count = planSteps(text).length
  const wrong = changes.find((change) => change.number < 1 || change.number > count)
  if (wrong !== undefined) {
    return { _tag: "Problem", problem: count === 0 ? "the plan has no steps (lines like `- [ ] step`)" : `there is no step ${wrong.number}; the plan has steps 1 to ${count}` }
  }
  const wanted = new Map(changes.map((change) => [change.number, change.status]))
  let number = 0
  const lines = text.split("\n").map((line) => {
    const found = stepStart.exec(line)
    if (found === null) return line
    number++
    const status = wanted.get(number)
    if (status === undefined) return line
    const at = (found[1] ?? "").length
    return `${line.slice(0, at)}${marks[status]}${line.slice(at + 1)}`
  })
  return { _tag: "Changed", text: lines.join("\n") }
}

/** The steps, numbered, as the plan tool lists them: "2. - [x] write the parser". */
export const numberedSteps = (text: string): string =>
  planSteps(text)
    .map((step) => `${step.number}. ${step.line.trim()}`)
    .join("\n")
