/**
 * propose_plan (docs/plans.md): puts the session's saved plan to the operator. In the terminal a
 * dialog answers (the Operator's `proposePlan`); "Start working on it" and a run with nobody to ask
 * end the turn here, "Keep planning" hands the operator's comment back to the model.
 */
import * as Effect from "effect/Effect"
import type { Classification } from "../approval/classification.ts"
import type { PlanFileShape } from "../plans/plan-file.ts"
import type { PlanDecision, PlanProposal } from "../plans/proposal.ts"
import * as P from "./params.ts"
import { planToolName } from "./plan-tool.ts"
import { defineTool, ToolError, type Tool } from "./tool.ts"

export const proposePlanToolName = "propose_plan"

export interface ProposePlanOptions {
  readonly plan: PlanFileShape
  readonly scope: Classification["scope"]
  /** The operator's dialog; undefined where nobody can decide. */
  readonly decide: ((plan: PlanProposal) => Effect.Effect<PlanDecision>) | undefined
}

export const makeProposePlanTool = ({ plan, scope, decide }: ProposePlanOptions): Tool =>
  defineTool({
    name: proposePlanToolName,
    modes: ["plan"],
    writesSessionFile: true,
    description:
      `Show the saved plan (written with the ${planToolName} tool) to the operator for approval, once it is complete. ` +
      "The operator either starts working on it (your turn ends; Work mode carries it out), or keeps planning and " +
      "may send a comment you then act on.",
    parameters: P.object({}),
    classify: () => Effect.succeed<Classification>({ risk: "low", authority: "read", scope, summary: `propose the session's plan (${plan.path})`, paths: [] }),
    run: () =>
      Effect.gen(function* () {
        const fail = (message: string) => new ToolError({ message: `${proposePlanToolName}: ${message}` })
        const saved = yield* plan.read
        if (saved._tag === "Refused") return yield* fail(saved.reason)
        if (saved._tag === "Missing") return yield* fail(`there is no plan to propose; write it with the ${planToolName} tool first`)
        const reread = () => {
          const read = plan.readNow()
          return read._tag === "Read" ? read.text : undefined
        }
        const decision: PlanDecision = decide === undefined ? { _tag: "NoOperator" } : yield* decide({ path: plan.path, text: saved.text, reread })
        switch (decision._tag) {
          case "NoOperator":
            return {
              text: `Nobody can approve the plan in this non-interactive run: it is printed with its path (${plan.path}), and the operator carries it out with \`crystal run --plan FILE\`. End your turn now.`,
              endsTurn: true
            } as const
          case "KeepPlanning": {
            const comment = decision.comment.trim()
            return {
              text: `The operator wants to keep planning${comment === "" ? " (no comment)." : `: ${comment}`}\nRevise the plan with the ${planToolName} tool if needed, then propose it again.`
            }
          }
          case "StartWorking": {
            // The operator may have edited the file in the dialog: what is approved is what is saved now.
            const approved = yield* plan.read
            yield* plan.approve({ path: plan.path, text: approved._tag === "Read" ? approved.text : saved.text })
            return { text: "The operator approved the plan. Stop here: Work mode carries it out in the next turn.", endsTurn: true } as const
          }
        }
      })
  })
