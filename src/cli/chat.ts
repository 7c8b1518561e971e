/**
 * `crystal` on a terminal, for now a plain line-by-line conversation on the same engine as
 * `crystal run` (the full terminal UI is its own piece of work). Ctrl+C cancels a running turn;
 * Ctrl+C on an empty prompt, Ctrl+D or /exit leaves.
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type { Interface } from "node:readline/promises"
import { startupComplete } from "../../layers/runtime.ts"
import { startSession } from "../../layers/session.ts"
import { ConfigError } from "../config/errors.ts"
import type { ApprovalAnswer, ApprovalRequest, OperatorShape, Question, QuestionAnswer, QuestionsOutcome } from "../engine/operator.ts"
import { runTurn } from "../engine/turn.ts"
import { makeModelClient } from "../providers/registry.ts"
import type { SessionFlags } from "./flags.ts"
import { writeStderr } from "./output.ts"
import { prepareSession } from "./prepare.ts"
import { makeTextRenderer } from "./render/text.ts"
import { ExitCode } from "./run-command.ts"
import { colorWanted, makeStyle } from "./style.ts"

const ask = (rl: Interface, prompt: string): Promise<string | undefined> =>
  new Promise((resolve) => {
    const onClose = () => resolve(undefined)
    rl.once("close", onClose)
    rl.question(prompt).then(
      (answer) => {
        rl.off("close", onClose)
        resolve(answer)
      },
      () => resolve(undefined)
    )
  })

const describeRequest = (request: ApprovalRequest): string => {
  const c = request.classification
  return `${c.summary}\n  risk ${c.risk} · ${c.authority} · ${c.scope} · approval mode ${request.mode}\n`
}

/** The line loop's approval question (SPEC A7); the full dialog comes with the terminal UI. */
const askApproval = async (rl: Interface, request: ApprovalRequest): Promise<ApprovalAnswer> => {
  writeStderr(`Allow ${describeRequest(request)}`)
  for (;;) {
    const answer = (await ask(rl, "  [y] once  [a] for this session  [n] deny  [m] deny with a message: "))?.trim().toLowerCase()
    if (answer === undefined || answer === "n" || answer === "no") return { _tag: "Deny" }
    if (answer === "y" || answer === "yes") return { _tag: "AllowOnce" }
    if (answer === "a") return { _tag: "AllowSession" }
    if (answer === "m") return { _tag: "Deny", message: (await ask(rl, "  message to the model: "))?.trim() }
  }
}

/** One question in the line loop: numbers pick options, other text is a custom answer, an empty line dismisses. */
const askOne = async (rl: Interface, question: Question, index: number, total: number): Promise<QuestionAnswer | undefined> => {
  const position = total > 1 ? ` (${index + 1}/${total})` : ""
  const options = question.options.map((option, i) => `  ${i + 1}. ${option.label} — ${option.description}`).join("\n")
  const how = question.multiSelect ? "numbers separated by commas" : "a number"
  const custom = question.allowCustom ? ", or type your own answer" : ""
  writeStderr(`${question.header}${position}: ${question.question}\n${options}\n`)
  for (;;) {
    const reply = (await ask(rl, `  Answer with ${how}${custom}; empty line dismisses: `))?.trim()
    if (reply === undefined || reply === "") return undefined
    const picks = reply.split(",").map((part) => part.trim())
    if (picks.every((pick) => /^\d+$/.test(pick))) {
      const chosen = picks.map((pick) => question.options[Number(pick) - 1]?.label)
      if (chosen.every((label) => label !== undefined) && (question.multiSelect || chosen.length === 1)) {
        return { selected: [...new Set(chosen as Array<string>)] }
      }
      writeStderr(`  ${question.multiSelect ? "" : "one option, "}numbers 1–${question.options.length}\n`)
      continue
    }
    if (question.allowCustom) return { selected: [], custom: reply }
  }
}

const askQuestionsInLines = async (rl: Interface, questions: ReadonlyArray<Question>): Promise<QuestionsOutcome> => {
  const answers: Array<QuestionAnswer> = []
  for (const [index, question] of questions.entries()) {
    const answer = await askOne(rl, question, index, questions.length)
    if (answer === undefined) return { _tag: "Dismissed" }
    answers.push(answer)
  }
  const single = questions.length === 1 && questions[0]?.multiSelect === false
  if (!single) {
    const confirm = (await ask(rl, "  Submit these answers? [Y/n] "))?.trim().toLowerCase()
    if (confirm === undefined || (confirm !== "" && confirm !== "y" && confirm !== "yes")) return { _tag: "Dismissed" }
  }
  return { _tag: "Answered", answers }
}

const terminalOperator = (rl: Interface): OperatorShape => ({
  confirm: (question, defaultAnswer) =>
    Effect.promise(() => ask(rl, `${question} ${defaultAnswer ? "[Y/n]" : "[y/N]"} `)).pipe(
      Effect.map((answer) => {
        const normalized = (answer ?? "").trim().toLowerCase()
        return normalized === "" ? defaultAnswer : normalized === "y" || normalized === "yes"
      })
    ),
  approve: (request) => Effect.promise(() => askApproval(rl, request)),
  askQuestions: (questions) => Effect.promise(() => askQuestionsInLines(rl, questions))
})

export const chatCommand = (flags: SessionFlags): Effect.Effect<number> =>
  Effect.gen(function* () {
    if (flags.format === "json") {
      return yield* new ConfigError({ message: "--format json is for scripts: use it with `crystal run` or pipe the prompt on stdin" })
    }
    const style = makeStyle(colorWanted(true))
    const prepared = yield* prepareSession(flags, process.cwd(), process.env)
    const client = yield* makeModelClient(prepared.model, process.env)
    const readline = yield* Effect.promise(() => import("node:readline/promises"))
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true })
    const view = makeTextRenderer(style)
    const session = yield* startSession(prepared, client, view, terminalOperator(rl))
    const id = prepared.document.id
    writeStderr(
      style.dim(
        `Crystal · ${prepared.model.ref} · ${prepared.document.workspace} · ${prepared.document.mode} mode · approval ${prepared.document.approval}\n` +
          `session ${id}${prepared.resumed ? " (resumed)" : ""} · Ctrl+C cancels a turn · Ctrl+D or /exit leaves\n`
      )
    )
    for (const note of [...prepared.notes, ...session.notes]) writeStderr(style.yellow(`${note}\n`))
    let turn: Fiber.RuntimeFiber<unknown, unknown> | undefined
    rl.on("SIGINT", () => {
      if (turn !== undefined) Effect.runFork(Fiber.interrupt(turn))
      else if (rl.line === "") rl.close()
      else rl.write(null, { ctrl: true, name: "u" })
    })
    for (;;) {
      const asking = ask(rl, style.bold("› "))
      startupComplete()
      const line = yield* Effect.promise(() => asking)
      if (line === undefined) {
        // Ctrl+D leaves the cursor after the prompt.
        writeStderr("\n")
        break
      }
      if (line.trim() === "/exit") break
      if (line.trim() === "") continue
      const settings = { maxSteps: prepared.maxSteps }
      const fiber = Effect.runFork(
        runTurn(line, settings).pipe(
          Effect.provide(session.services),
          Effect.catchAll((error) => view.failed(error.message)),
          Effect.onInterrupt(() => view.note("turn cancelled; what was complete is kept"))
        )
      )
      turn = fiber
      const exit = yield* Fiber.await(fiber)
      turn = undefined
      // After the answer is on screen, in the background: a slow or failing title never holds up the conversation.
      if (exit._tag === "Success") yield* Effect.forkScoped(session.nameSession())
    }
    rl.close()
    writeStderr(style.dim(`session saved · resume it with: crystal --resume ${id}\n`))
    return ExitCode.ok
  }).pipe(
    Effect.scoped,
    Effect.catchAll((error) =>
      Effect.sync(() => {
        writeStderr(`crystal: ${error.message}\n`)
        return error._tag === "ConfigError" ? ExitCode.usage : ExitCode.failure
      })
    )
  )
