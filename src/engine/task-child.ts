/**
 * Runs a `task` call's child agent (issue 26): its own conversation (system prompt, transcript) in
 * the parent's services, with only what it may have replaced — the catalog cut down to the
 * parent's current one ∩ the agent's tools, plan mode under a plan parent, a renderer that marks
 * its events with the agent's path, an operator that names that path on every approval it asks
 * (the root's operator answers, headless ones deny). The ApprovalPolicy, Redactor, plugins and
 * (unless the agent names another) the model are the parent's own instances.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import type { AgentDefinition, AgentPath } from "../agents/definition.ts"
import { childToolNames, filesChangedLine, taskIndex } from "../tools/task-narrow.ts"
import { defaultAgentName, TaskRunner, type TaskRequest, type TaskRunnerShape } from "../tools/task-tool.ts"
import { PluginLoader } from "../plugins/plugin-loader.ts"
import { Providers, type ProvidersShape } from "../providers/providers.ts"
import type { ChildTranscript } from "../session/child-transcript.ts"
import { emptyUsage, recordUsage, type Mode, type SessionDocument } from "../session/document.ts"
import { newItemId } from "../session/ids.ts"
import type { ToolOutput } from "../tools/tool.ts"
import { messageOf } from "../text/error-text.ts"
import { filesTouched } from "./compaction-plan.ts"
import { Conversation, type ConversationShape } from "./conversation.ts"
import { Operator, type OperatorShape } from "./operator.ts"
import { Renderer, silentRenderer } from "./renderer.ts"
import { Toolbox, type ToolboxShape } from "./toolbox.ts"
import { turnLoop, type TurnOutcome, type TurnSettings } from "./turn.ts"

/** Everything a turn loop runs on: what a child's context is made of. */
export type AgentServices = Effect.Effect.Context<ReturnType<typeof turnLoop>> | TaskRunner

export interface TaskRunnerOptions {
  readonly agents: ReadonlyArray<AgentDefinition>
  readonly maxParallel: number
  readonly maxDepth: number
  /** The parent's turn settings; an agent's maxSteps may lower maxSteps, never raise it. */
  readonly settings: TurnSettings
  /** A Providers of its own whose active model is `ref`, for an agent that names a model. */
  readonly modelFor?: ((agent: AgentDefinition) => Effect.Effect<ProvidersShape, { readonly message: string }>) | undefined
}

const failure = (text: string): ToolOutput => ({ text, isError: true })


/** Every approval a child asks names it; the deepest agent's path is kept as the ask goes up. Its step limit stops it, unasked. */
const childOperator = (parent: OperatorShape, path: AgentPath): OperatorShape => ({
  ...parent,
  approve: (request) => parent.approve({ ...request, agent: request.agent ?? path }),
  confirm: () => Effect.succeed(false)
})

type Status = ChildTranscript["status"]

interface ChildMeta {
  readonly callId: string
  readonly agent: string
  readonly index: number
  readonly description: string
  readonly mode: Mode
}

const transcriptOf = (meta: ChildMeta, doc: SessionDocument, status: Status): ChildTranscript => ({
  agent: meta.agent,
  index: meta.index,
  description: meta.description,
  status,
  mode: meta.mode,
  model: doc.model,
  items: doc.items,
  usage: doc.usage,
  ...(doc.usageByModel === undefined ? {} : { usageByModel: doc.usageByModel }),
  ...(doc.agents === undefined ? {} : { agents: doc.agents })
})

/**
 * What the child sees of its document: approval and access are its parent's as they are now, and
 * plan mode whenever the parent is in plan now (a switch mid-turn reaches running children; each
 * parent reads its own parent the same way, so this holds at every depth).
 */
const narrowedBy = (parentDoc: SessionDocument, doc: SessionDocument): SessionDocument => {
  const { access: _access, ...rest } = doc
  return {
    ...rest,
    approval: parentDoc.approval,
    ...(parentDoc.access === undefined ? {} : { access: parentDoc.access }),
    mode: parentDoc.mode === "plan" ? "plan" : doc.mode
  }
}

/**
 * The child's conversation: in memory, and every save files it under its task call in the
 * parent's document and saves that (so the root's session file holds every depth).
 */
const childConversation = (parent: ConversationShape, meta: ChildMeta, initial: SessionDocument) =>
  Effect.gen(function* () {
    const ref = yield* Ref.make(initial)
    let status: Status = "running"
    const document = Effect.zipWith(parent.document, Ref.get(ref), narrowedBy)
    const update = (change: (doc: SessionDocument) => SessionDocument) =>
      Effect.flatMap(parent.document, (parentDoc) => Ref.update(ref, (doc) => change(narrowedBy(parentDoc, doc))))
    const file = Effect.flatMap(Ref.get(ref), (doc) =>
      parent.update((parentDoc) => ({ ...parentDoc, agents: { ...parentDoc.agents, [meta.callId]: transcriptOf(meta, doc, status) } }))
    )
    const save = Effect.zipRight(file, parent.save)
    const shape: ConversationShape = {
      document,
      append: (...items) => update((doc) => ({ ...doc, items: [...doc.items, ...items] })),
      update,
      save,
      flush: Effect.zipRight(save, parent.flush),
      turnRunning: parent.turnRunning,
      duringTurn: (turn) => turn,
      firstTime: parent.firstTime
    }
    /** Files the child's final state and adds what it cost to the parent's usage. */
    const finish = (final: Status) =>
      Effect.gen(function* () {
        status = final
        const doc = yield* Ref.get(ref)
        yield* parent.update((parentDoc) =>
          Object.entries(doc.usageByModel ?? {}).reduce((sum, [model, usage]) => recordUsage(sum, model, usage), parentDoc)
        )
        yield* save
      })
    return { shape, finish }
  })

const finalText = (doc: SessionDocument): string => {
  for (let index = doc.items.length - 1; index >= 0; index--) {
    const item = doc.items[index]
    if (item?._tag === "assistant" && item.text.trim() !== "") return item.text
  }
  return "(the agent ended without a final answer)"
}

/** The files a child and, at every depth, its own children wrote; each named once. */
const filesWritten = (tree: Pick<ChildTranscript, "items" | "agents">, fileWriters: ReadonlySet<string>, earlier: ReadonlyArray<string> = []): ReadonlyArray<string> =>
  Object.values(tree.agents ?? {}).reduce((files, child) => filesWritten(child, fileWriters, files), filesTouched(tree.items, fileWriters, earlier))

const resultText = (outcome: TurnOutcome, doc: SessionDocument, fileWriters: ReadonlySet<string>): ToolOutput => {
  const stopped = outcome._tag === "StepLimit" ? `\n\n(The agent was stopped after ${outcome.steps} model requests, its step limit.)` : ""
  return { text: `${finalText(doc)}${stopped}\n\n${filesChangedLine(filesWritten(doc, fileWriters))}` }
}

const stopReason = (exit: Exit.Exit<TurnOutcome, unknown>): string => {
  if (Exit.isSuccess(exit)) return exit.value._tag === "Answered" ? "answered" : "step_limit"
  return Cause.isInterruptedOnly(exit.cause) ? "cancelled" : "error"
}

/** The runner of the agent at `path` (the root session: []), over that agent's own services. */
export const makeTaskRunner = (options: TaskRunnerOptions, path: AgentPath, services: () => Context.Context<AgentServices>): TaskRunnerShape => ({
  maxParallel: options.maxParallel,
  run: (request) => runChild(options, path, services(), request)
})

const runChild = (options: TaskRunnerOptions, path: AgentPath, parent: Context.Context<AgentServices>, request: TaskRequest): Effect.Effect<ToolOutput> =>
  Effect.gen(function* () {
    const name = request.agent ?? defaultAgentName
    const definition = options.agents.find((agent) => agent.name === name)
    if (definition === undefined) {
      return failure(`task: there is no agent named '${name}'; the agents are: ${options.agents.map((agent) => agent.name).join(", ")}`)
    }
    const conversation = Context.get(parent, Conversation)
    const toolbox = Context.get(parent, Toolbox)
    const parentDoc = yield* conversation.document
    const index = taskIndex(parentDoc.items, request.callId)
    const childPath: AgentPath = [...path, { callId: request.callId, index, name }]
    // A plan parent's children are read-only, whatever their definition says.
    const mode: Mode = parentDoc.mode === "plan" ? "plan" : (definition.mode ?? parentDoc.mode)
    const allowed = childToolNames({
      parentTools: toolbox.catalog(parentDoc.mode).map((tool) => tool.name),
      childModeTools: toolbox.catalog(mode).map((tool) => tool.name),
      definition,
      mayStartTasks: childPath.length < options.maxDepth
    })
    let childProviders = Context.get(parent, Providers)
    if (definition.model !== "inherit" && options.modelFor !== undefined) {
      const chosen = yield* Effect.either(options.modelFor(definition))
      if (Either.isLeft(chosen)) return failure(`task: agent '${name}' cannot use model ${definition.model}: ${chosen.left.message}`)
      childProviders = chosen.right
    }
    const settings: TurnSettings = { ...options.settings, maxSteps: Math.min(definition.maxSteps ?? options.settings.maxSteps, options.settings.maxSteps) }
    const meta: ChildMeta = { callId: request.callId, agent: name, index, description: request.description, mode }
    const { agents: _agents, todos: _todos, title: _title, usageByModel: _byModel, ...kept } = parentDoc
    const initial: SessionDocument = { ...kept, items: [], usage: emptyUsage, mode, system: definition.prompt, model: childProviders.current().entry.ref }
    const child = yield* childConversation(conversation, meta, initial)
    const childToolbox: ToolboxShape = {
      catalog: (catalogMode) => toolbox.catalog(catalogMode).filter((tool) => allowed.has(tool.name)),
      context: toolbox.context,
      fileWriters: toolbox.fileWriters
    }
    const parentRenderer = Context.get(parent, Renderer)
    const context: Context.Context<AgentServices> = parent.pipe(
      Context.add(Conversation, child.shape),
      Context.add(Toolbox, childToolbox),
      Context.add(Renderer, parentRenderer.child?.(childPath) ?? silentRenderer),
      Context.add(Operator, childOperator(Context.get(parent, Operator), childPath)),
      Context.add(Providers, childProviders),
      // Its own children are capped by its limit, not the root's.
      Context.add(TaskRunner, makeTaskRunner({ ...options, settings }, childPath, () => context))
    )
    const hooks = Context.get(parent, PluginLoader).hooks
    const turn = Effect.gen(function* () {
      yield* child.shape.append({ _tag: "user", id: newItemId(), text: request.prompt })
      yield* child.shape.save
      yield* hooks.turnStarted({ text: request.prompt, mode, agent: childPath })
      return yield* turnLoop(child.shape, settings).pipe(
        Effect.onExit((exit) => hooks.turnFinished({ text: request.prompt, mode, stopReason: stopReason(exit), agent: childPath }))
      )
    })
    const exit = yield* turn.pipe(
      Effect.provide(context),
      Effect.onExit((exit) => child.finish(Exit.isSuccess(exit) ? "done" : Cause.isInterruptedOnly(exit.cause) ? "cancelled" : "failed")),
      Effect.either
    )
    if (exit._tag === "Left") return failure(`task: agent '${name}' failed: ${messageOf(exit.left)}`)
    return resultText(exit.right, yield* child.shape.document, toolbox.fileWriters)
  })
