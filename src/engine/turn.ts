/**
 * The turn loop: stream a response → render it → run its tool calls → feed the results back →
 * repeat until the model answers without tool calls. Whatever happens (error, cut stream,
 * interruption), the session keeps what was complete and stays consistent for the next turn.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { ProviderError } from "../providers/errors.ts"
import type { ModelEvent, OutputSchema } from "../providers/model-client.ts"
import { withAnswerInstruction } from "./answer-instruction.ts"
import { retryStream } from "../providers/retry.ts"
import { addUsage, emptyUsage, recordUsage } from "../session/document.ts"
import { newItemId } from "../session/ids.ts"
import type { AssistantMessage, FinishReason, ImageRef, ReasoningPart, ToolCall, ToolResult, Usage } from "../session/items.ts"
import type { SessionError } from "../session/store.ts"
import { Providers } from "../providers/providers.ts"
import { requireImageModel } from "./attach-image.ts"
import { fitContext, type TurnCompactionState } from "./compaction.ts"
import { contextView } from "./context-view.ts"
import { Conversation, type ConversationShape } from "./conversation.ts"
import { executeToolCall } from "./executor.ts"
import { Operator } from "./operator.ts"
import { refuseOversizedMessage } from "./oversized-message.ts"
import { Renderer } from "./renderer.ts"
import { shownStream } from "./turn-stream.ts"
import { Redactor } from "../secrets/redactor.ts"
import { rejectedImageRetry } from "./rejected-image.ts"
import { PluginLoader } from "../plugins/plugin-loader.ts"
import { heldImages, requestImages, withImages } from "./request-images.ts"
import { reminderDue, reminderText } from "./todo-reminder.ts"
import { Toolbox, toolDefinitions } from "./toolbox.ts"
import { todoToolNames } from "../tools/todo-tools.ts"
import { TaskRunner, taskToolName } from "../tools/task-tool.ts"
import { childUsage } from "./task-usage.ts"
import { filesChangedText } from "./files-changed.ts"
import { TurnCheckpoints, type TurnCheckpointsShape } from "./turn-checkpoints.ts"

export interface TurnSettings {
  /** Model requests allowed before the operator is asked whether to go on. */
  readonly maxSteps: number
  /** retry.maxWaitSeconds of config.json: the longest retry-after waited for (default 60). */
  readonly maxRetryWaitSeconds?: number | undefined
  /** `crystal run --output-schema`: the final answer's JSON Schema, sent with every request. */
  readonly outputSchema?: OutputSchema | undefined
  /** A turn that only corrects the final answer: its requests carry no tool definitions, and no call it makes is run. */
  readonly answerOnly?: boolean | undefined
}

/** `usage` sums the turn's model responses; `usageByModel` splits it by "provider/model" for pricing. */
export type TurnOutcome =
  | { readonly _tag: "Answered"; readonly steps: number; readonly usage: Usage; readonly usageByModel: Record<string, Usage> }
  | { readonly _tag: "StepLimit"; readonly steps: number; readonly usage: Usage; readonly usageByModel: Record<string, Usage> }

export type TurnError = ProviderError | SessionError

/** What has arrived of one response so far; kept outside the stream so a failure can still save it. */
class ResponseDraft {
  text = ""
  readonly reasoning: Array<ReasoningPart> = []
  private openReasoning: string | undefined
  readonly toolCalls: Array<ToolCall> = []
  usage: Usage | undefined
  finishReason: FinishReason | undefined

  apply(event: ModelEvent): void {
    switch (event.type) {
      case "text_delta":
        this.text += event.text
        return
      case "reasoning_delta":
        this.openReasoning = (this.openReasoning ?? "") + event.text
        return
      case "reasoning_end":
        this.reasoning.push({ text: this.openReasoning ?? "", ...(event.opaque === undefined ? {} : { opaque: event.opaque }) })
        this.openReasoning = undefined
        return
      case "tool_call":
        this.toolCalls.push({
          id: event.id,
          name: event.name,
          arguments: event.arguments,
          ...(event.opaque === undefined ? {} : { opaque: event.opaque })
        })
        return
      case "usage":
        this.usage = event.usage
        return
      case "finish":
        this.finishReason = event.reason
        return
    }
  }

  isEmpty(): boolean {
    return this.text === "" && this.reasoning.length === 0 && this.openReasoning === undefined && this.toolCalls.length === 0
  }

  toMessage(model: string, incomplete: boolean): AssistantMessage {
    const reasoning = this.openReasoning === undefined ? this.reasoning : [...this.reasoning, { text: this.openReasoning }]
    return {
      _tag: "assistant",
      id: newItemId(),
      text: this.text,
      model,
      ...(reasoning.length > 0 ? { reasoning } : {}),
      // A cut stream may have delivered half a tool call: only complete responses keep their calls.
      ...(!incomplete && this.toolCalls.length > 0 ? { toolCalls: this.toolCalls } : {}),
      ...(this.finishReason !== undefined ? { finishReason: this.finishReason } : incomplete ? { finishReason: "cancelled" as const } : {}),
      ...(this.usage !== undefined ? { usage: this.usage } : {}),
      ...(incomplete ? { incomplete: true } : {})
    }
  }
}

const recordMessage = (message: AssistantMessage) =>
  Effect.gen(function* () {
    const conversation = yield* Conversation
    yield* conversation.append(message)
    const usage = message.usage
    yield* conversation.update((doc) => ({ ...(usage === undefined ? doc : recordUsage(doc, message.model, usage)), model: message.model }))
  })

/** One model request, rendered as it streams; the response is in the transcript when this returns. */
const respond = (settings: TurnSettings) => Effect.gen(function* () {
    const { entry: model, client } = (yield* Providers).current()
    const renderer = yield* Renderer
    const conversation = yield* Conversation
    const toolbox = yield* Toolbox
    const before = yield* conversation.document
    const catalog = toolbox.catalog(before.mode)
    if (reminderDue(before.items, catalog.some((tool) => tool.name === todoToolNames.write))) {
      yield* conversation.append({ _tag: "user", id: newItemId(), text: reminderText(before.todos ?? []), synthetic: "reminder" })
    }
    const doc = yield* conversation.document
    const items = contextView(doc.items).items
    const images = yield* requestImages(items, model)
    const hooks = (yield* PluginLoader).hooks
    // TransformModel / RebuildModel change this call only; the transcript keeps what was stored.
    const outbound = yield* hooks.outbound(
      doc.mode,
      {
        system: withAnswerInstruction(doc.system ?? "", settings.outputSchema),
        items,
        tools: settings.answerOnly === true ? [] : toolDefinitions(catalog),
        model,
        ...(images === undefined ? {} : { images }),
        ...(settings.outputSchema === undefined ? {} : { outputSchema: settings.outputSchema })
      },
      heldImages(doc.items)
    )
    const request = outbound.changed ? yield* withImages(outbound.request) : outbound.request
    const draft = new ResponseDraft()
    const shown = shownStream(renderer, (yield* Redactor).secrets)
    const events = retryStream(() => client.stream(request), {
      ...(settings.maxRetryWaitSeconds === undefined ? {} : { maxRetryAfterMs: settings.maxRetryWaitSeconds * 1000 }),
      onRetry: (info) =>
        renderer.retrying({
          attempt: info.attempt,
          maxAttempts: info.maxAttempts,
          delayMs: info.delayMs,
          reason: info.error.message
        })
    })
    yield* events.pipe(
      Stream.runForEach((event) => {
        draft.apply(event)
        return shown.show(event)
      }),
      Effect.ensuring(shown.end),
      Effect.onExit((exit) =>
        Exit.isSuccess(exit) || draft.isEmpty()
          ? Effect.void
          : recordMessage(draft.toMessage(model.ref, true)).pipe(Effect.zipRight(conversation.save))
      ),
      Effect.tapError(() =>
        Effect.forEach(outbound.rebuiltBy, (plugin) => renderer.note(`Raw hook '${plugin}' changed this model request. The failure may be related.`), { discard: true })
      )
    )
    const message = draft.toMessage(model.ref, false)
    // Before the host commits the candidate; the hook sees a copy and the host keeps what it received.
    yield* hooks.modelResponse(doc.mode, message)
    yield* recordMessage(message)
    yield* conversation.save
    yield* renderer.assistantMessage(message)
    return message
  })

const unansweredResult =
  (text: string) =>
  (call: ToolCall): ToolResult => ({ _tag: "tool_result", id: newItemId(), callId: call.id, name: call.name, text, isError: true })

const cancelledResult = unansweredResult("cancelled by the operator before it finished")

/**
 * Runs the calls in order, but the `task` calls concurrently (at most the runner's maxParallel at
 * once, issue 26) beside the others, which keep their order; results are stored in call order as
 * they complete. If interrupted (every child with it), every call still gets a result so the
 * transcript stays valid. True when a call ended the turn (its output said `endsTurn`): the calls
 * after it are not run.
 */
const runToolCalls = (calls: ReadonlyArray<ToolCall>) =>
  Effect.gen(function* () {
    const renderer = yield* Renderer
    const conversation = yield* Conversation
    const runner = yield* Effect.serviceOption(TaskRunner)
    const results: Array<ToolResult | undefined> = calls.map(() => undefined)
    const storing = yield* Effect.makeSemaphore(1)
    let stored = 0
    // The finished results at the head of the list go in; one behind an unfinished call waits for it.
    const storeReady = storing.withPermits(1)(
      Effect.suspend(() => {
        const ready: Array<ToolResult> = []
        for (let next = results[stored]; next !== undefined; next = results[stored]) {
          ready.push(next)
          stored++
        }
        return ready.length === 0 ? Effect.void : conversation.append(...ready)
      })
    )
    let endedBy: string | undefined
    const runOne = (call: ToolCall, position: number) =>
      Effect.gen(function* () {
        if (endedBy !== undefined) {
          results[position] = unansweredResult(`not run: ${endedBy} ended the turn`)(call)
          return yield* storeReady
        }
        yield* renderer.toolStarted(call)
        const started = Date.now()
        const doc = yield* conversation.document
        const acceptsImages = (yield* Providers).current().entry.capabilities.imageInput
        const output = yield* executeToolCall(call, { mode: doc.mode, approval: doc.approval, acceptsImages })
        const result: ToolResult = {
          _tag: "tool_result",
          id: newItemId(),
          callId: call.id,
          name: call.name,
          text: output.text,
          isError: output.isError === true,
          ...(output.images !== undefined && output.images.length > 0 ? { images: output.images } : {})
        }
        results[position] = result
        yield* storeReady
        yield* renderer.toolFinished(result, Date.now() - started)
        if (output.endsTurn === true) endedBy = call.name
      })
    const positions = calls.map((call, position) => ({ call, position }))
    const isTask = (entry: { readonly call: ToolCall }) => Option.isSome(runner) && entry.call.name === taskToolName
    const inOrder = Effect.forEach(positions.filter((entry) => !isTask(entry)), (entry) => runOne(entry.call, entry.position), { discard: true })
    const tasks = Effect.forEach(positions.filter(isTask), (entry) => runOne(entry.call, entry.position), {
      concurrency: Option.match(runner, { onNone: () => 1, onSome: (found) => found.maxParallel }),
      discard: true
    })
    yield* Effect.all([inOrder, tasks], { concurrency: "unbounded", discard: true }).pipe(
      Effect.onInterrupt(() =>
        Effect.suspend(() => {
          calls.forEach((call, position) => {
            results[position] ??= cancelledResult(call)
          })
          return storeReady.pipe(Effect.zipRight(conversation.save))
        })
      )
    )
    yield* conversation.save
    return endedBy !== undefined
  })

/** What the operator sends: text, and the images attached to it (their markers are in the text). */
export interface UserInput {
  readonly text: string
  readonly images?: ReadonlyArray<ImageRef> | undefined
}

export const runTurn = (input: string | UserInput, settings: TurnSettings) =>
  Effect.flatMap(Conversation, (conversation) =>
    conversation.duringTurn(turnBody(conversation, typeof input === "string" ? { text: input } : input, settings))
  )

const turnBody = (conversation: ConversationShape, input: UserInput, settings: TurnSettings) =>
  Effect.gen(function* () {
    const hooks = (yield* PluginLoader).hooks
    for (const note of yield* (yield* Toolbox).beforeTurn ?? Effect.succeed([])) yield* (yield* Renderer).note(note)
    const images = input.images ?? []
    // SPEC I3: refused before anything is stored or sent (the model may have changed since the paste).
    if (images.length > 0) yield* requireImageModel
    const text = yield* hooks.userMessage(input.text)
    const userMessage = { _tag: "user", id: newItemId(), text, ...(images.length > 0 ? { images } : {}) } as const
    yield* refuseOversizedMessage(userMessage)
    yield* conversation.append(userMessage)
    yield* conversation.save
    const mode = (yield* conversation.document).mode
    const checkpoints = yield* Effect.serviceOption(TurnCheckpoints)
    if (Option.isSome(checkpoints)) yield* checkpoints.value.turnStarted(userMessage)
    yield* hooks.turnStarted({ text, mode })
    return yield* turnLoop(conversation, settings).pipe(
      Effect.onExit(() => (Option.isSome(checkpoints) ? checkpointEnded(checkpoints.value) : Effect.void)),
      Effect.onExit((exit) => hooks.turnFinished({ text, mode, stopReason: stopReason(exit) }))
    )
  })

/** The turn's "after" snapshot and record; the turn line says how many files it changed. */
const checkpointEnded = (checkpoints: TurnCheckpointsShape) =>
  Effect.gen(function* () {
    const ended = yield* checkpoints.turnEnded
    if (ended === undefined) return
    const renderer = yield* Renderer
    if (renderer.filesChanged !== undefined) yield* renderer.filesChanged(ended)
    else if (ended.files.length > 0) yield* renderer.note(filesChangedText(ended.files))
    yield* (yield* Conversation).flush.pipe(Effect.ignore)
  })

/** What onTurnFinished hears of how a turn ended. */
const stopReason = (exit: Exit.Exit<TurnOutcome, unknown>): string => {
  if (Exit.isSuccess(exit)) return exit.value._tag === "Answered" ? "answered" : "step_limit"
  return Cause.isInterruptedOnly(exit.cause) ? "cancelled" : "error"
}

export const turnLoop = (conversation: ConversationShape, settings: TurnSettings) =>
  Effect.gen(function* () {
    const operator = yield* Operator
    const renderer = yield* Renderer
    let steps = 0
    let budget = settings.maxSteps
    let usage: Usage = emptyUsage
    const usageByModel: Record<string, Usage> = {}
    const compaction: TurnCompactionState = { compacted: false }
    for (;;) {
      yield* fitContext(compaction)
      const message = yield* rejectedImageRetry(respond(settings))
      steps++
      if (message.usage !== undefined) {
        usage = addUsage(usage, message.usage)
        usageByModel[message.model] = addUsage(usageByModel[message.model] ?? emptyUsage, message.usage)
      }
      const calls = message.toolCalls ?? []
      if (calls.length === 0) {
        yield* conversation.flush
        return { _tag: "Answered", steps, usage, usageByModel } satisfies TurnOutcome
      }
      if (settings.answerOnly === true) {
        // The correction offers no tools, and a call made anyway is not run: each gets an error
        // result (the transcript stays valid) and the turn ends on it, an invalid answer.
        yield* conversation.append(...calls.map(unansweredResult("not run: this turn only corrects the final answer; no tool may run in it")))
        yield* conversation.flush
        return { _tag: "Answered", steps, usage, usageByModel } satisfies TurnOutcome
      }
      const ended = yield* runToolCalls(calls)
      // What the step's children cost is part of the turn's usage (their own requests and their children's).
      for (const [model, used] of childUsage(yield* conversation.document, calls)) {
        usage = addUsage(usage, used)
        usageByModel[model] = addUsage(usageByModel[model] ?? emptyUsage, used)
      }
      if (ended) {
        yield* conversation.flush
        return { _tag: "Answered", steps, usage, usageByModel } satisfies TurnOutcome
      }
      if (steps >= budget) {
        const goOn = yield* operator.confirm(
          `The model has made ${steps} requests in this turn. Let it continue for ${settings.maxSteps} more?`,
          false
        )
        if (!goOn) {
          const note = `Turn stopped after ${steps} model requests (maxSteps is ${settings.maxSteps} in config.json); the tool results so far are saved. Send another message to continue.`
          yield* conversation.append({ _tag: "note", id: newItemId(), text: note })
          yield* conversation.flush
          yield* renderer.note(note)
          return { _tag: "StepLimit", steps, usage, usageByModel } satisfies TurnOutcome
        }
        budget += settings.maxSteps
      }
    }
  })
