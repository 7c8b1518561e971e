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
import { jsonRenderer } from "./render/json.ts"
import { colorWanted, loadPalette } from "../terminal/colors.ts"
import { makeTextRenderer } from "./render/text.ts"

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

/** The prompt with its `--image` files attached, their markers after the text; refused before any request. */
const withImages = (text: string, files: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (files.length === 0) return { text } satisfies UserInput
    yield* requireImageModel
    const images = yield* Effect.forEach(files, attachImageFile)
    return { text: `${text}\n\n${images.map((image) => image.marker).join(" ")}`, images } satisfies UserInput
  })

export const runCommand = (prompt: string | undefined, flags: SessionFlags): Effect.Effect<number> =>
  Effect.gen(function* () {
    const view = yield* rendererFor(flags.format)
    // What ends the run is said with the session's secrets redacted once there is one: a provider's
    // error message can quote a key (the session's own renderer redacts everything else).
    let redact = (message: string): Effect.Effect<string> => Effect.succeed(message)
    const program = Effect.gen(function* () {
      const text = yield* promptText(prompt)
      const prepared = yield* prepareSession(flags, process.cwd(), process.env)
      const session = yield* startSession(prepared, { env: process.env, renderer: view, operator: headlessOperator })
      redact = Context.get(session.services, Redactor).redact
      yield* view.sessionStarted({
        id: prepared.document.id,
        model: prepared.model.ref,
        workspace: prepared.document.workspace,
        resumed: prepared.resumed
      })
      for (const note of [...prepared.notes, ...session.notes]) yield* view.note(note)
      const input = yield* withImages(text, flags.image).pipe(Effect.provide(session.services))
      const outcome = yield* runTurn(input, { maxSteps: prepared.maxSteps, maxRetryWaitSeconds: prepared.config.retry?.maxWaitSeconds }).pipe(
        Effect.provide(session.services),
        Effect.onInterrupt(() => view.failed("interrupted; the session keeps what was complete"))
      )
      if (outcome._tag === "StepLimit") {
        yield* view.failed(`stopped at the step limit (${outcome.steps} model requests)`)
        return ExitCode.failure
      }
      yield* view.finished({ sessionId: prepared.document.id, usage: outcome.usage })
      return ExitCode.ok
    })
    return yield* program.pipe(
      Effect.scoped,
      Effect.catchAll((error) => Effect.flatMap(redact(error.message), view.failed).pipe(Effect.as(exitCode(error))))
    )
  })
