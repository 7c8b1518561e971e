import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import type { OperatorShape } from "../../../src/engine/operator.ts"
import type { Question, QuestionsOutcome } from "../../../src/tools/questions.ts"
import { makeQuestionTool, noOperatorText } from "../../../src/tools/question-tool.ts"
import type { ToolContext } from "../../../src/tools/tool.ts"

const operator = (outcome: QuestionsOutcome, seen: Array<ReadonlyArray<Question>> = []): OperatorShape => ({
  confirm: () => Effect.succeed(false),
  approve: () => Effect.succeed({ _tag: "NoOperator" }),
  askQuestions: (questions) =>
    Effect.sync(() => {
      seen.push(questions)
      return outcome
    })
})

const option = (label: string) => ({ label, description: `${label} it is` })
const ask = (outcome: QuestionsOutcome, questions: unknown, seen?: Array<ReadonlyArray<Question>>) =>
  Effect.runPromise(Effect.either(makeQuestionTool(operator(outcome, seen)).run({ questions } as never, {} as ToolContext)))

const twoQuestions = [
  { header: "Framework", question: "Which framework?", options: [option("React"), option("Vue")] },
  { header: "Features", question: "Which features?", options: [option("Auth"), option("Billing"), option("Search")], multiSelect: true }
]

describe("the question tool", () => {
  it("passes the questions to the operator and returns the chosen labels per question", async () => {
    const seen: Array<ReadonlyArray<Question>> = []
    const result = await ask(
      { _tag: "Answered", answers: [{ selected: ["Vue"] }, { selected: ["Auth", "Search"], custom: "and SSO" }] },
      twoQuestions,
      seen
    )
    expect(result).toMatchObject({
      _tag: "Right",
      right: {
        text: JSON.stringify({
          answers: [
            { header: "Framework", selected: ["Vue"] },
            { header: "Features", selected: ["Auth", "Search"], custom: "and SSO" }
          ]
        })
      }
    })
    expect(seen[0]?.map((question) => [question.multiSelect, question.allowCustom])).toEqual([
      [false, true],
      [true, true]
    ])
  })

  it.each([
    [[], "question: ask 1–4 questions at a time (got 0)"],
    [Array(5).fill(twoQuestions[0]), "question: ask 1–4 questions at a time (got 5)"],
    [[{ header: "H", question: "Q?", options: [option("only")] }], "question 1: give 2–6 options (got 1)"],
    [[{ header: "Much too long header", question: "Q?", options: [option("a"), option("b")] }], 'question: question 1: the header must be 1–12 characters (got "Much too long header")'],
    [[{ header: "H", question: "Q?", options: [option("a"), option("a")] }], 'question: question 1: the option label "a" appears twice'],
    [[twoQuestions[0], twoQuestions[0]], 'question: the question "Which framework?" is asked twice']
  ])("refuses %j", async (questions, message) => {
    const seen: Array<ReadonlyArray<Question>> = []
    expect(await ask({ _tag: "Dismissed" }, questions, seen)).toMatchObject({ _tag: "Left", left: { message } })
    expect(seen).toEqual([])
  })

  it("fails when the operator dismisses the questions", async () => {
    expect(await ask({ _tag: "Dismissed" }, twoQuestions)).toMatchObject({ _tag: "Left", left: { message: expect.stringMatching(/dismissed/) } })
  })

  it("tells the model how to go on when nobody can answer", async () => {
    expect(await ask({ _tag: "NoOperator" }, twoQuestions)).toMatchObject({ _tag: "Left", left: { message: noOperatorText } })
    expect(noOperatorText).toMatch(/recommended default only when it is safe and reversible/)
  })
})
