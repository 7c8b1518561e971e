/**
 * The plan tool (docs/plans.md): writes the session's plan file, the one write Plan mode allows.
 * The model sends the words (the whole plan, or step status changes); the path is the session's
 * PlanFile's, fixed when the session started, and no argument can name another. Its spec says
 * `writesSessionFile`, so the approval policy lets it run in plan mode and, but under audit,
 * without asking (docs/security.md, "The plan file").
 */
import * as Effect from "effect/Effect"
import type { Classification } from "../approval/classification.ts"
import { numberedSteps, planSteps, setStepStatuses, stepStatuses, type StepStatus } from "../plans/steps.ts"
import type { PlanFileShape } from "../plans/plan-file.ts"
import * as P from "./params.ts"
import { defineTool, everyMode, ToolError, type Tool } from "./tool.ts"
import { plural } from "../text/plural.ts"

export const planToolName = "plan"

/** "3 steps: 1 pending, 1 in progress, 1 done", or that it has none. */
export const stepsSummary = (text: string): string => {
  const steps = planSteps(text)
  if (steps.length === 0) return "no steps (lines like `- [ ] step`)"
  const count = (status: StepStatus) => steps.filter((step) => step.status === status).length
  return `${plural(steps.length, "step")}: ${count("pending")} pending, ${count("in_progress")} in progress, ${count("done")} done`
}

const describePlan = (path: string, text: string): string => {
  const steps = numberedSteps(text)
  return `The plan is saved as ${path} (${stepsSummary(text)}).${steps === "" ? "" : `\n${steps}`}`
}

export interface PlanToolOptions {
  readonly plan: PlanFileShape
  /** Where the plan file lives relative to the workspace: "workspace" when plans.directory puts it there. */
  readonly scope: Classification["scope"]
}

export const makePlanTool = ({ plan, scope }: PlanToolOptions): Tool =>
  defineTool({
    name: planToolName,
    modes: everyMode,
    writesSessionFile: true,
    description:
      "The session's plan file: the agreed outcome of planning, kept across compaction and sessions. " +
      "In Plan mode it is the one thing you may write. Send `text` to replace the whole plan (Markdown; " +
      "write each step as a task line `- [ ] step`), or `steps` to mark steps by number as you work " +
      "(`in_progress` when you start one, `done` when it is finished), or nothing to read it. " +
      "The file's path is fixed by Crystal; you cannot choose it.",
    parameters: P.object({
      text: P.optional(P.string("The whole plan in Markdown, replacing the saved one.")),
      steps: P.optional(
        P.array(
          P.nested({ step: P.integer("The step's number (1 is the first task line).", { minimum: 1 }), status: P.literal(stepStatuses) }),
          "Status changes for steps of the saved plan; every other byte of it stays as it is."
        )
      )
    }),
    classify: ({ text, steps }) =>
      Effect.succeed<Classification>(
        text === undefined && steps === undefined
          ? { risk: "low", authority: "read", scope, summary: `read the session's plan (${plan.path})`, paths: [] }
          : {
              risk: "low",
              authority: "write",
              scope,
              summary: text === undefined ? `mark steps of the session's plan (${plan.path})` : `write the session's plan (${plan.path})`,
              // Not a path the fence grants: the plan tool writes its own file through the PlanFile, nothing else.
              paths: []
            }
      ),
    run: ({ text, steps }) =>
      Effect.gen(function* () {
        if (text !== undefined && steps !== undefined) return yield* new ToolError({ message: `${planToolName}: send either \`text\` (the whole plan) or \`steps\` (status changes), not both` })
        const fail = (message: string) => new ToolError({ message: `${planToolName}: ${message}` })
        if (text !== undefined) {
          if (text.trim() === "") return yield* fail("the plan is empty; send the whole plan as Markdown")
          yield* plan.write(text).pipe(Effect.mapError((error) => fail(error.message)))
          return { text: describePlan(plan.path, text) }
        }
        const saved = yield* plan.read
        if (saved._tag === "Refused") return yield* fail(saved.reason)
        if (saved._tag === "Missing") return yield* fail(`there is no plan yet (${plan.path}); send \`text\` to write one`)
        if (steps === undefined) return { text: `${describePlan(plan.path, saved.text)}\n\n${saved.text}` }
        const changed = setStepStatuses(saved.text, steps.map((change) => ({ number: change.step, status: change.status })))
        if (changed._tag === "Problem") return yield* fail(changed.problem)
        yield* plan.write(changed.text).pipe(Effect.mapError((error) => fail(error.message)))
        return { text: describePlan(plan.path, changed.text) }
      })
  })
