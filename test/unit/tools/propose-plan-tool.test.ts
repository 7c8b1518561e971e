import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { planLocation } from "../../../src/plans/location.ts"
import { PlanFile } from "../../../src/plans/plan-file.ts"
import type { PlanDecision, PlanProposal, ProposedPlan } from "../../../src/plans/proposal.ts"
import { makeProposePlanTool } from "../../../src/tools/propose-plan-tool.ts"
import type { ToolContext } from "../../../src/tools/tool.ts"
import { tempDir } from "../../support/temp.ts"

const plan = "# Plan\n- [ ] one\n"

const setup = async (decide?: (proposed: PlanProposal) => Effect.Effect<PlanDecision>) => {
  const root = await tempDir("crystal-propose-")
  const location = planLocation({ home: path.join(root, "home"), workspace: root, sessionId: "s1" })
  const planFile = await Effect.runPromise(PlanFile.make({ location, redact: Effect.succeed }))
  const tool = makeProposePlanTool({ plan: planFile, scope: "outside", decide })
  // The tool uses nothing of the context: the plan file is its own.
  const run = () => Effect.runPromise(Effect.either(tool.run({} as never, {} as ToolContext)))
  return { planFile, run, tool }
}

describe("propose_plan", () => {
  it("is Plan mode's only, and refuses to propose a plan that was never written", async () => {
    const { run, tool } = await setup()
    expect(tool.modes).toEqual(["plan"])
    const result = await run()
    expect(Either.isLeft(result) && result.left.message).toBe("propose_plan: there is no plan to propose; write it with the plan tool first")
  })

  it("with nobody to decide, ends the turn and says how the plan is carried out", async () => {
    const { planFile, run } = await setup()
    await Effect.runPromise(planFile.write(plan))
    const result = await run()
    expect(Either.isRight(result) && result.right).toEqual({
      text: `Nobody can approve the plan in this non-interactive run: it is printed with its path (${planFile.path}), and the operator carries it out with \`crystal run --plan FILE\`. End your turn now.`,
      endsTurn: true
    })
    expect(await Effect.runPromise(planFile.takeApproved)).toBeUndefined()
  })

  it("keep planning: the operator's comment goes back to the model and the turn goes on", async () => {
    const shown: Array<ProposedPlan> = []
    const { planFile, run } = await setup((proposed) => Effect.sync(() => (shown.push({ path: proposed.path, text: proposed.text }), { _tag: "KeepPlanning", comment: " split step 1 in two " })))
    await Effect.runPromise(planFile.write(plan))
    const result = await run()
    expect(shown).toEqual([{ path: planFile.path, text: plan }])
    expect(Either.isRight(result) && result.right).toEqual({
      text: "The operator wants to keep planning: split step 1 in two\nRevise the plan with the plan tool if needed, then propose it again."
    })
  })

  it("start working: ends the turn and hands over the plan as saved when the dialog closed (an edit included)", async () => {
    const { planFile, run } = await setup((proposed) =>
      Effect.sync(() => {
        // The operator edited the file in $EDITOR before choosing.
        fs.writeFileSync(proposed.path, `${proposed.text}- [ ] two, added by the operator\n`)
        return { _tag: "StartWorking" } as const
      })
    )
    await Effect.runPromise(planFile.write(plan))
    const result = await run()
    expect(Either.isRight(result) && result.right).toEqual({ text: "The operator approved the plan. Stop here: Work mode carries it out in the next turn.", endsTurn: true })
    expect(await Effect.runPromise(planFile.takeApproved)).toEqual({ path: planFile.path, text: `${plan}- [ ] two, added by the operator\n` })
  })
})
