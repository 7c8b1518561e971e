/**
 * The message a Work turn starts from when a plan is handed over: the operator chose "Start working
 * on it" in the plan dialog, or ran `crystal run --plan FILE`. The plan travels whole in the message,
 * so the turn's first request carries it even when the model never reads the file.
 */
import type { ProposedPlan } from "./proposal.ts"

export const planInstruction = (plan: ProposedPlan, prompt?: string): string => {
  const said = prompt?.trim() ?? ""
  return [
    ...(said === "" ? [] : [said, ""]),
    `Carry out the plan the operator approved. It is saved as ${plan.path}; mark its steps with the plan tool as you go ([~] when you start one, [x] when it is done).`,
    "",
    plan.text.trimEnd()
  ].join("\n")
}
