/**
 * The question tool (SPEC T3): the model asks the operator 1–4 multiple-choice questions. The
 * Operator service asks them; with nobody there (crystal run) the call fails with instructions.
 */
import * as Effect from "effect/Effect"
import type { Question, QuestionAnswer, QuestionAsker } from "./questions.ts"
import * as P from "./params.ts"
import { everyMode, defineTool, ToolError, type Tool } from "./tool.ts"
import { plural } from "../text/plural.ts"

export const questionToolName = "question"
export const headerLimit = 12

const findDuplicate = (values: ReadonlyArray<string>): string | undefined =>
  values.find((value, index) => values.indexOf(value) !== index)

/** Checks what the schema cannot: header length and duplicates. */
export const validateQuestions = (questions: ReadonlyArray<Question>): string | undefined => {
  for (const [index, question] of questions.entries()) {
    const where = `question ${index + 1}`
    if (question.header.trim() === "" || question.header.length > headerLimit) {
      return `${where}: the header must be 1–${headerLimit} characters (got ${JSON.stringify(question.header)})`
    }
    if (question.question.trim() === "") return `${where}: the question text is empty`
    const duplicateLabel = findDuplicate(question.options.map((option) => option.label.trim()))
    if (duplicateLabel !== undefined) return `${where}: the option label ${JSON.stringify(duplicateLabel)} appears twice`
    if (question.options.some((option) => option.label.trim() === "")) return `${where}: an option has an empty label`
  }
  const duplicateQuestion = findDuplicate(questions.map((question) => question.question.trim()))
  return duplicateQuestion === undefined ? undefined : `the question ${JSON.stringify(duplicateQuestion)} is asked twice`
}

export const formatAnswers = (questions: ReadonlyArray<Question>, answers: ReadonlyArray<QuestionAnswer>): string =>
  JSON.stringify({
    answers: questions.map((question, index) => {
      const answer = answers[index] ?? { selected: [] }
      return { header: question.header, selected: answer.selected, ...(answer.custom === undefined ? {} : { custom: answer.custom }) }
    })
  })

export const noOperatorText =
  "No one can answer questions in this non-interactive run. Go on with your recommended default only when it is safe " +
  "and reversible; otherwise stop and report the open question and the default you would take."

export const makeQuestionTool = (operator: QuestionAsker): Tool =>
  defineTool({
    name: questionToolName,
    modes: everyMode,
    description:
      "Ask the operator 1–4 multiple-choice questions when a decision is theirs (preferences, trade-offs, ambiguous " +
      "requirements). Give 2–6 options each, the recommended one first. The answer lists the chosen labels per question; " +
      "custom text the operator typed is marked `custom`.",
    parameters: P.object({
      questions: P.array(
        P.nested({
          header: P.string(`Short label, at most ${headerLimit} characters.`),
          question: P.string("The full question."),
          options: P.array(P.nested({ label: P.string(), description: P.string("What choosing it means.") })),
          multiSelect: P.optional(P.boolean("Allow several options (default false).")),
          custom: P.optional(P.boolean("Allow a typed answer (default true)."))
        })
      )
    }),
    classify: (args) =>
      Effect.succeed({
        risk: "low",
        authority: "read",
        scope: "workspace",
        summary: `ask the operator ${plural(args.questions.length, "question")}`,
        paths: []
      }),
    run: (args) =>
      Effect.gen(function* () {
        if (args.questions.length < 1 || args.questions.length > 4) {
          return yield* new ToolError({ message: `question: ask 1–4 questions at a time (got ${args.questions.length})` })
        }
        const questions: ReadonlyArray<Question> = args.questions.map((question) => ({
          header: question.header.trim(),
          question: question.question.trim(),
          options: question.options.map((option) => ({ label: option.label.trim(), description: option.description.trim() })),
          multiSelect: question.multiSelect ?? false,
          allowCustom: question.custom ?? true
        }))
        const wrongCount = questions.findIndex((question) => question.options.length < 2 || question.options.length > 6)
        if (wrongCount >= 0) {
          return yield* new ToolError({ message: `question ${wrongCount + 1}: give 2–6 options (got ${questions[wrongCount]?.options.length})` })
        }
        const invalid = validateQuestions(questions)
        if (invalid !== undefined) return yield* new ToolError({ message: `question: ${invalid}` })
        const outcome = yield* operator.askQuestions(questions)
        switch (outcome._tag) {
          case "Answered":
            return { text: formatAnswers(questions, outcome.answers) }
          case "Dismissed":
            return yield* new ToolError({ message: "The operator dismissed the questions without answering. Do not ask them again unchanged." })
          case "NoOperator":
            return yield* new ToolError({ message: noOperatorText })
        }
      })
  })
