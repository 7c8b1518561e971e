/** `crystal run [PROMPT]` (and a piped `crystal`): one turn loop, then exit with a code that says how it went. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { headlessOperator } from "../../layers/headless.ts"
import { startupComplete } from "../../layers/runtime.ts"
import { ExitCode, exitCode } from "../../layers/exit-code.ts"
import { startSession } from "../../layers/session.ts"
import { ConfigError } from "../config/errors.ts"
import type { RendererShape } from "../engine/renderer.ts"
import { attachImageFile, requireImageModel } from "../engine/attach-image.ts"
import { runTurn, type UserInput } from "../engine/turn.ts"
import { Redactor } from "../secrets/redactor.ts"
import type { OutputFormat, SessionFlags } from "./flags.ts"
import { prepareSession } from "../../layers/prepare.ts"
import { isTerminal, readStdin } from "./prompt-input.ts"
import { headlessPrompt } from "./run-slash-command.ts"
import { jsonRenderer } from "./render/json.ts"
import { colorWanted, loadPalette } from "../terminal/colors.ts"
import { makeTextRenderer } from "./render/text.ts"
import { printPlan } from "./render/plan-output.ts"
import { Conversation } from "../engine/conversation.ts"
import { costUsage, sessionCost } from "../providers/cost.ts"
import { priceLookup } from "../providers/pricing.ts"
import { readRegularFile } from "../files/confined-read.ts"
import { planInstruction } from "../plans/instruction.ts"
import { maxPlanBytes } from "../plans/plan-file.ts"
import * as path from "node:path"
import { structuredTurn } from "./structured-turn.ts"
import { redactValue } from "../secrets/redact-value.ts"
import { inertJson } from "../terminal/inert.ts"
import { writeStdout } from "../terminal/output.ts"

/** Runs `action` once, when the model's first output reaches the renderer: the end of start-up. */
const onFirstOutput = (view: RendererShape, action: () => void): RendererShape => {
  let pending = true
  const first =
    <A extends ReadonlyArray<unknown>>(render: (...args: A) => Effect.Effect<void>) =>
    (...args: A) =>
      Effect.suspend(() => {
        if (pending) {
          pending = false
          action()
        }
        return render(...args)
      })
  return {
    ...view,
    textDelta: first(view.textDelta),
    reasoningDelta: first(view.reasoningDelta),
    assistantMessage: first(view.assistantMessage)
  }
}

const rendererFor = (format: OutputFormat): Effect.Effect<RendererShape> =>
  (format === "json"
    ? Effect.succeed(jsonRenderer)
    : Effect.promise(async () => {
        const [stdout, stderr] = await Promise.all([isTerminal(1), isTerminal(2)])
        return makeTextRenderer(await loadPalette(colorWanted(stderr)), { stdout })
      })
  ).pipe(Effect.map((view) => onFirstOutput(view, startupComplete)))

const promptText = (prompt: string | undefined) =>
  Effect.gen(function* () {
    if (prompt !== undefined) return prompt
    if (yield* Effect.promise(() => isTerminal(0))) {
      return yield* new ConfigError({ message: "crystal run: no prompt; pass it as an argument or pipe it on stdin" })
    }
    return yield* Effect.promise(readStdin)
  }).pipe(
    Effect.filterOrFail(
      (text) => text.trim() !== "",
      () => new ConfigError({ message: "crystal run: the prompt is empty" })
    )
  )

/** The plan `--plan FILE` names: a regular file (never a FIFO or device), at most a plan's size, not empty. */
const readPlanFlag = (file: string) =>
  Effect.gen(function* () {
    const read = readRegularFile(path.resolve(file), maxPlanBytes)
    if (read === undefined) return yield* new ConfigError({ message: `--plan: ${file} does not exist` })
    if ("refused" in read) return yield* new ConfigError({ message: `--plan: ${file} ${read.refused}` })
    const text = read.bytes.toString("utf8")
    if (text.trim() === "") return yield* new ConfigError({ message: `--plan: ${file} is empty` })
    return text
  })

/** The prompt with its `--image` files attached, their markers after the text; refused before any request. */
const withImages = (text: string, files: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (files.length === 0) return { text } satisfies UserInput
    yield* requireImageModel
    const images = yield* Effect.forEach(files, attachImageFile)
    return { text: `${text}\n\n${images.map((image) => image.marker).join(" ")}`, images } satisfies UserInput
  })

/** The `--output-schema` file read and compiled (ajv loads here, only with the flag). */
const readAnswerSchema = (file: string) =>
  Effect.flatMap(
    Effect.promise(() => import("../output-schema/schema-file.ts").then((module) => module.loadAnswerSchema(file))),
    (loaded) => (loaded instanceof ConfigError ? Effect.fail(loaded) : Effect.succeed(loaded))
  )

/** With `--output-schema` in text, the answer's streamed text stays off stdout: only the checked value goes there. */
const withoutAnswerText = (view: RendererShape): RendererShape => ({ ...view, textDelta: () => Effect.void })

export const runCommand = (prompt: string | undefined, flags: SessionFlags): Effect.Effect<number> =>
  Effect.gen(function* () {
    const rendered = yield* rendererFor(flags.format)
    const view = flags.outputSchema !== undefined && flags.format === "text" ? withoutAnswerText(rendered) : rendered
    // What ends the run is said with the session's secrets redacted once there is one: a provider's
    // error message can quote a key (the session's own renderer redacts everything else).
    let redact = (message: string): Effect.Effect<string> => Effect.succeed(message)
    const program = Effect.gen(function* () {
      if (flags.plan !== undefined && flags.mode === "plan") {
        return yield* new ConfigError({ message: "--plan starts a Work turn from the plan; it cannot go with --mode plan" })
      }
      // With --plan the plan is the instruction; a prompt is optional.
      const text = flags.plan !== undefined && prompt === undefined ? "" : yield* promptText(prompt)
      const handed = flags.plan === undefined ? undefined : yield* readPlanFlag(flags.plan)
      const answerSchema = flags.outputSchema === undefined ? undefined : yield* readAnswerSchema(flags.outputSchema)
      const prepared = yield* prepareSession(handed === undefined ? flags : { ...flags, mode: "work" }, process.cwd(), process.env)
      const session = yield* startSession(prepared, { env: process.env, renderer: view, operator: headlessOperator })
      redact = Context.get(session.services, Redactor).redact
      yield* view.sessionStarted({
        id: prepared.document.id,
        model: prepared.model.ref,
        workspace: prepared.document.workspace,
        resumed: prepared.resumed
      })
      for (const note of [...prepared.notes, ...session.notes]) yield* view.note(note)
      if (handed !== undefined) {
        // It becomes the session's plan, which the plan tool then marks step by step.
        yield* session.plan.write(handed).pipe(Effect.mapError((error) => new ConfigError({ message: `--plan: ${error.message}` })))
      }
      const typed = handed === undefined ? yield* headlessPrompt(text, prepared, session) : text
      const instruction = handed === undefined ? typed : planInstruction({ path: session.plan.path, text: handed }, text)
      const input = yield* withImages(instruction, flags.image).pipe(Effect.provide(session.services))
      const settings = { maxSteps: prepared.maxSteps, maxRetryWaitSeconds: prepared.config.retry?.maxWaitSeconds }
      const ran = yield* (answerSchema === undefined
        ? Effect.map(runTurn(input, settings), (outcome) => ({ outcome, answer: undefined }))
        : Effect.map(structuredTurn(input, settings, answerSchema), (structured) =>
            structured._tag === "StepLimit" ? { outcome: structured.outcome, answer: undefined } : structured
          )
      ).pipe(
        Effect.provide(session.services),
        Effect.onInterrupt(() => view.failed("interrupted; the session keeps what was complete"))
      )
      const { outcome, answer } = ran
      if (outcome._tag === "StepLimit") {
        yield* view.failed(`stopped at the step limit (${outcome.steps} model requests)`)
        return ExitCode.failure
      }
      if (answer?._tag === "Invalid") {
        yield* view.failed(yield* redact(`the answer does not match ${flags.outputSchema} after one retry: ${answer.errors.join("; ")}`))
        return ExitCode.invalidAnswer
      }
      const output = answer === undefined ? undefined : redactValue(yield* Context.get(session.services, Redactor).secrets, answer.value)
      // The check saw the answer before redaction: a secret taken out of it can leave a value the
      // schema refuses (a pattern, a length), which a script must not receive as valid.
      const redactedErrors = answer === undefined || answerSchema === undefined ? [] : answerSchema.check(output)
      if (redactedErrors.length > 0) {
        yield* view.failed(
          yield* redact(`the answer matched ${flags.outputSchema} but a secret was redacted from it and it no longer does: ${redactedErrors.join("; ")}`)
        )
        return ExitCode.invalidAnswer
      }
      const doc = yield* Context.get(session.services, Conversation).document
      if (doc.mode === "plan" && answer === undefined) yield* printPlan(flags.format, session.plan)
      const prices = priceLookup(prepared.config.pricing)
      yield* view.finished({
        sessionId: prepared.document.id,
        usage: outcome.usage,
        usd: costUsage(outcome.usageByModel, prices).usd,
        session: sessionCost(doc, prices),
        ...(answer === undefined ? {} : { output })
      })
      // Text: stdout is exactly the value (the answer's streamed text was kept off it).
      if (answer !== undefined && flags.format === "text") writeStdout(`${inertJson(output)}\n`)
      return ExitCode.ok
    })
    return yield* program.pipe(
      Effect.scoped,
      Effect.catchAll((error) => Effect.flatMap(redact(error.message), view.failed).pipe(Effect.as(exitCode(error))))
    )
  })
