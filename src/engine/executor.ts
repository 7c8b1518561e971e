import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { ApprovalMode } from "../approval/policy.ts"
import { describeParseError } from "../config/parse-errors.ts"
import { argumentsProblem } from "../providers/tool-arguments.ts"
import type { Mode } from "../session/document.ts"
import { redactText } from "../secrets/redact.ts"
import { Redactor } from "../secrets/redactor.ts"
import type { ToolCall } from "../session/items.ts"
import type { Tool, ToolOutput, ToolProgress } from "../tools/tool.ts"
import { authorize } from "./authorize.ts"
import type { ApprovalPolicy } from "../approval/approval-policy.ts"
import { Conversation } from "./conversation.ts"
import { PluginLoader } from "../plugins/plugin-loader.ts"
import { heldImages } from "./request-images.ts"
import type { Operator } from "./operator.ts"
import { Renderer } from "./renderer.ts"
import { Toolbox } from "./toolbox.ts"
import { mayChangeWorkspace, TurnCheckpoints } from "./turn-checkpoints.ts"
import { messageOf } from "../text/error-text.ts"

const failure = (text: string): ToolOutput => ({ text, isError: true })

/** Known secrets never reach the conversation, a spill file or a request (src/secrets/redact.ts). */
const redacted = (output: ToolOutput): Effect.Effect<ToolOutput, never, Redactor> =>
  Effect.flatMap(Redactor, (redactor) => Effect.map(redactor.redact(output.text), (text) => ({ ...output, text })))

const decoders = new WeakMap<Tool, (input: unknown) => Either.Either<unknown, ParseError>>()

const decoderFor = (tool: Tool) => {
  let decode = decoders.get(tool)
  if (decode === undefined) {
    // params.ts only builds context-free schemas; the catalog type just cannot say so.
    const schema = tool.parameters.schema as unknown as Schema.Schema<unknown>
    decode = Schema.decodeUnknownEither(schema, { errors: "all" })
    decoders.set(tool, decode)
  }
  return decode
}

const decodeArguments = (tool: Tool, input: unknown): Either.Either<unknown, string> => {
  const check = tool.parameters.check
  if (check !== undefined) {
    const problem = check(input)
    return problem === undefined ? Either.right(input) : Either.left(problem)
  }
  return Either.mapLeft(decoderFor(tool)(input), (error) => describeParseError(error).join("; "))
}

/** The one place where anything a tool throws becomes a result the model reads (SPEC A4). */
const describeDefect = (tool: Tool, cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const detail = messageOf(error)
  return `${tool.name} failed unexpectedly: ${detail}`
}

/** Defects become results; interruption is passed on so a cancelled turn stops. */
const catchDefects = (tool: Tool) => (effect: Effect.Effect<ToolOutput>) =>
  Effect.catchAllCause(effect, (cause) =>
    Cause.isInterruptedOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : Effect.succeed(failure(describeDefect(tool, cause)))
  )

/**
 * The least time between two progress events of one call: a server may send progress as fast as
 * it likes, the renderer (a terminal, a JSON stream) gets at most four a second. The last report
 * held back is delivered when its time comes, unless the call ended first.
 */
export const PROGRESS_INTERVAL_MS = 250

/** A call's ToolContext.progress, made on its first report (most calls never report). */
const progressReporter = (emit: (update: ToolProgress) => void) => {
  let last = 0
  let held: ToolProgress | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let ended = false
  const deliver = () => {
    timer = undefined
    const update = held
    held = undefined
    if (update === undefined || ended) return
    last = performance.now()
    emit(update)
  }
  return {
    report: (update: ToolProgress) => {
      if (ended) return
      const wait = last + PROGRESS_INTERVAL_MS - performance.now()
      held = update
      if (timer === undefined) {
        if (wait <= 0) deliver()
        else timer = setTimeout(deliver, wait)
      }
    },
    end: () => {
      ended = true
      if (timer !== undefined) clearTimeout(timer)
    }
  }
}

export interface ExecutionSettings {
  readonly mode: Mode
  readonly approval: ApprovalMode
  /** The turn's model takes images: onToolResult may give a result images (a text-only turn ignores them). */
  readonly acceptsImages?: boolean | undefined
}

export type ExecutionServices = Toolbox | ApprovalPolicy | Conversation | Operator | Renderer | PluginLoader | Redactor

/**
 * Runs one tool call and always produces an output: unknown tools, malformed arguments,
 * classification failures, denials, tool errors and defects all become error results the
 * model can act on. Only tools of the current mode's catalog can be called.
 */
export const executeToolCall = (
  modelCall: ToolCall,
  settings: ExecutionSettings
): Effect.Effect<ToolOutput, never, ExecutionServices> =>
  Effect.gen(function* () {
    const hooks = (yield* PluginLoader).hooks
    // A call a hook rewrote is classified and approved as rewritten (SPEC A5): nothing below sees the model's version.
    const call = yield* hooks.toolCall(modelCall)
    const output = yield* runCall(call, settings, call !== modelCall)
    if (hooks.idle) return output
    const images = (yield* (yield* Toolbox).context).images
    const doc = yield* (yield* Conversation).document
    const attach = images === undefined ? undefined : (bytes: Uint8Array, source: string) => Effect.map(images.attach(bytes, source), (kept) => kept.ref)
    const changed = yield* hooks.toolResult(call, { text: output.text, images: output.images ?? [] }, {
      acceptsImages: settings.acceptsImages === true,
      held: heldImages(doc.items),
      attach
    })
    const { images: _images, ...rest } = output
    return { ...rest, text: changed.text, ...(changed.images.length > 0 ? { images: changed.images } : {}) }
  }).pipe(Effect.flatMap(redacted))

const runCall = (call: ToolCall, settings: ExecutionSettings, rewritten: boolean): Effect.Effect<ToolOutput, never, ExecutionServices> =>
  Effect.gen(function* () {
    const toolbox = yield* Toolbox
    const catalog = toolbox.catalog(settings.mode)
    const tool = catalog.find((candidate) => candidate.name === call.name)
    if (tool === undefined) {
      const names = catalog.map((candidate) => candidate.name).join(", ")
      return failure(`there is no tool named '${call.name}' in ${settings.mode} mode; the available tools are: ${names}`)
    }
    const unusable = argumentsProblem(tool.name, call.arguments)
    if (unusable !== undefined) return failure(unusable)
    const decoded = decodeArguments(tool, call.arguments ?? {})
    if (Either.isLeft(decoded)) return failure(`${tool.name}: invalid arguments: ${decoded.left}`)
    const args = decoded.right as never
    const context = yield* toolbox.context
    const classified = yield* tool.classify(args, context).pipe(Effect.either, catchDefectsEither(tool))
    if (Either.isLeft(classified)) return failure(classified.left)
    // onApproval may only raise what the host decided; rewriteApproval (raw) may set anything, and the policy still decides.
    const classification = yield* (yield* PluginLoader).hooks.approval(call, classified.right)
    const verdict = yield* authorize(call, classification, {
      ...settings,
      writesThroughFence: tool.writesThroughFence === true,
      // Only a built-in tool is trusted to write nothing but the session's own file.
      writesSessionFile: tool.writesSessionFile === true && tool.external !== true
    })
    if (verdict._tag === "Refuse") return failure(verdict.text)
    // The operator or the policy allowed exactly these paths for this call.
    const outside = classification.paths.filter((path) => path.scope === "outside").map((path) => ({ root: path.real, access: path.access }))
    const fenced = outside.length === 0 ? context : { ...context, fence: context.fence.withGrants(outside) }
    const sandboxed = verdict.sandbox === undefined ? fenced : { ...fenced, sandbox: verdict.sandbox }
    // The turn's checkpoint: after the approval, before the first call that may change the workspace.
    const checkpoints = yield* Effect.serviceOption(TurnCheckpoints)
    if (Option.isSome(checkpoints) && mayChangeWorkspace(tool, rewritten)) yield* checkpoints.value.beforeChange
    const renderer = yield* Renderer
    let reporter: ReturnType<typeof progressReporter> | undefined
    const progress = (update: ToolProgress) => {
      reporter ??= progressReporter(({ message, ...counts }) => {
        // Shown, never stored: still, a known secret never reaches the screen or the JSON stream.
        const shown = message === undefined ? counts : { ...counts, message: redactText(context.secrets, message) }
        Effect.runFork(renderer.toolProgress({ callId: call.id, toolName: call.name, ...shown }))
      })
      reporter.report(update)
    }
    const callContext = { ...sandboxed, callId: call.id, spill: (toolName: string, text: string) => sandboxed.spill(toolName, redactText(context.secrets, text)), progress }
    return yield* tool.run(args, callContext).pipe(
      // Only a built-in tool ends a turn (propose_plan).
      Effect.map((output): ToolOutput => {
        if (tool.external !== true || output.endsTurn === undefined) return output
        const { endsTurn: _ignored, ...rest } = output
        return rest
      }),
      Effect.catchTags({ ToolError: (error) => Effect.succeed(failure(error.message)), FenceError: (error) => Effect.succeed(failure(error.message)) }),
      catchDefects(tool),
      // No progress event after the call's result.
      Effect.ensuring(Effect.sync(() => reporter?.end()))
    )
  })

/** classify failures and defects as text, interruption passed on. */
const catchDefectsEither =
  (tool: Tool) =>
  <A>(effect: Effect.Effect<Either.Either<A, { readonly message: string }>>): Effect.Effect<Either.Either<A, string>> =>
    Effect.catchAllCause(
      Effect.map(effect, Either.mapLeft((error) => `${tool.name}: ${error.message}`)),
      (cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : Effect.succeed(Either.left(describeDefect(tool, cause)))
    )
