/**
 * The hook pipeline (SPEC H1–H3): every plugin's hooks in load order, each seeing the previous
 * one's replacement. Whatever a hook returns is checked against its row (hook-rules.ts,
 * model-rules.ts) before the host uses it; a result that oversteps, a throw and a timeout are
 * skipped with a note naming the plugin, the hook and the rule, and the turn goes on. One
 * exception fails closed: an onApproval hook that throws or times out makes the call ask.
 * Raw hooks run with only the checks of what the host cannot represent.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import type { ModelRequest } from "../providers/model-client.ts"
import type { PlaceholderRegistry } from "../prompts/placeholder-registry.ts"
import type { AssistantMessage, ImageRef } from "../session/items.ts"
import type { HookName, PluginAgentPath, SessionInfo } from "./api.ts"
import { callHook } from "./hook-call.ts"
import { checkCompaction, checkPromptAppend, checkRawText, checkUserMessage, type Checked } from "./hook-rules.ts"
import { makeHookRunner, type HookRunner, type PipelineNote } from "./hook-runner.ts"
import type { LoadedPlugin } from "./loaded.ts"
import { checkRebuild, checkTransform } from "./model-rules.ts"
import { copyView, fromPluginRequest, toPluginRequest } from "./model-view.ts"
import { toolSeams, type ToolSeams } from "./pipeline-tools.ts"

export type Purpose = "work" | "plan" | "side" | "compaction"

/** A subagent's turn carries its path (a copy: the plugin cannot change the engine's); the root's has none. */
const agentField = (agent: PluginAgentPath | undefined) =>
  agent === undefined || agent.length === 0 ? {} : { agent: agent.map((step) => ({ callId: step.callId, index: step.index, name: step.name })) }

export interface PipelineOptions {
  readonly plugins: ReadonlyArray<LoadedPlugin>
  /** Where notes go (the terminal, stderr, a JSON event); every note is also kept for /plugins. */
  readonly note: (text: string) => Effect.Effect<void>
  /** config.json: session hooks may not change it (it is put back if one does). */
  readonly configFile?: string | undefined
  readonly budgetMs?: number | undefined
}

export interface OutboundRequest {
  readonly request: ModelRequest
  /** Plugins whose raw rebuildModel changed this call (for the failure note). */
  readonly rebuiltBy: ReadonlyArray<string>
  readonly changed: boolean
}

export interface HookPipeline extends ToolSeams {
  /** No plugin has a hook or raw hook: every seam returns its input at once. */
  readonly idle: boolean
  readonly sessionStarted: (info: SessionInfo) => Effect.Effect<void>
  readonly sessionEnded: (info: SessionInfo) => Effect.Effect<void>
  /** onPrompt's texts for a mode's system text, in load order. */
  readonly promptAppends: (mode: "work" | "plan" | "review") => Effect.Effect<ReadonlyArray<string>>
  readonly rewritePrompt: (mode: "work" | "plan" | "review" | "compaction", text: string) => Effect.Effect<string>
  readonly userMessage: (text: string) => Effect.Effect<string>
  /** `agent`: set for a subagent's turn (issue 26), the path from the root's child down to it. */
  readonly turnStarted: (turn: { readonly text: string; readonly mode: string; readonly agent?: PluginAgentPath | undefined }) => Effect.Effect<void>
  readonly turnFinished: (turn: { readonly text: string; readonly mode: string; readonly stopReason: string; readonly agent?: PluginAgentPath | undefined }) => Effect.Effect<void>
  /** rebuildModel, then transformModel, on one outbound call; `held` is every image the session holds. */
  readonly outbound: (purpose: Purpose, request: ModelRequest, held: ReadonlyMap<string, ImageRef>) => Effect.Effect<OutboundRequest>
  readonly modelResponse: (purpose: Purpose, message: AssistantMessage) => Effect.Effect<void>
  /** onCompaction's appends to the compaction prompt, then rewriteCompaction of it. */
  readonly compactionPrompt: (prompt: string) => Effect.Effect<string>
  /** onCompaction's appends to the summary, then rewriteCompaction of it: the text that is stored. */
  readonly compactionSummary: (prompt: string, summary: string) => Effect.Effect<string>
  /** Registers every plugin's placeholders (P3: host names refused, the first plugin keeps a duplicate). */
  readonly registerPlaceholders: (registry: PlaceholderRegistry) => Effect.Effect<void>
  /** Resolves the registered placeholders (each under the budget) for the next composition. */
  readonly refreshPlaceholders: Effect.Effect<void>
  /** Every note the pipeline wrote, oldest first, with the plugin it concerns. */
  readonly notes: () => ReadonlyArray<PipelineNote>
}

const readFileOrUndefined = (file: string): Buffer | undefined => {
  try {
    return fs.readFileSync(file)
  } catch {
    return undefined
  }
}

/** Session hooks may not write config.json (seed 001): a change is put back and noted. */
const guardingConfig = ({ table, note }: HookRunner, file: string | undefined, hook: HookName, effect: Effect.Effect<void>) =>
  Effect.gen(function* () {
    if (file === undefined || table[hook].length === 0) return yield* effect
    const before = readFileOrUndefined(file)
    yield* effect
    const after = readFileOrUndefined(file)
    if (before === after || (before !== undefined && after !== undefined && before.equals(after))) return
    if (before === undefined) fs.rmSync(file, { force: true })
    else {
      const restoring = `${file}.${process.pid}.restore`
      fs.writeFileSync(restoring, before, { mode: 0o600 })
      fs.renameSync(restoring, file)
    }
    const names = table[hook].map((bound) => `'${bound.plugin.name}'`).join(", ")
    yield* note(table[hook].map((bound) => bound.plugin.name), `A plugin's ${hook} (${names}) changed ${file}; session hooks may not write config.json, so Crystal put it back.`)
  })

/** Plugin placeholders the registry took, resolved (each under the budget) at each refresh. */
const pluginPlaceholders = (plugins: ReadonlyArray<LoadedPlugin>, { budgetMs, note }: HookRunner) => {
  const placeholders: Array<{ readonly plugin: string; readonly name: string; readonly resolve: () => unknown }> = []
  const resolved = new Map<string, { readonly value: string | undefined } | { readonly failed: string }>()
  const register = (registry: PlaceholderRegistry, plugin: LoadedPlugin, name: string, resolve: unknown) => {
    if (typeof resolve !== "function") return Effect.void
    const registration = registry.register(plugin.name, name, () => {
      const latest = resolved.get(name)
      if (latest !== undefined && "failed" in latest) throw new Error(latest.failed)
      return latest?.value
    })
    if (registration._tag === "Refused") return note(plugin.name, registration.note)
    placeholders.push({ plugin: plugin.name, name, resolve: () => (resolve as () => unknown).call(plugin.plugin.placeholders) })
    return Effect.void
  }
  const registerPlaceholders = (registry: PlaceholderRegistry) =>
    Effect.forEach(
      plugins,
      (plugin) => Effect.forEach(Object.entries(plugin.plugin.placeholders ?? {}), ([name, resolve]) => register(registry, plugin, name, resolve), { discard: true }),
      { discard: true }
    )
  const refreshPlaceholders = Effect.forEach(
    placeholders,
    ({ plugin, name, resolve }) =>
      Effect.map(callHook(resolve, undefined, budgetMs), (outcome) => {
        if (outcome._tag === "TimedOut") resolved.set(name, { failed: `plugin '${plugin}' took longer than ${budgetMs / 1000} s` })
        else if (outcome._tag === "Threw") resolved.set(name, { failed: `plugin '${plugin}': ${outcome.message}` })
        else if (outcome.value === undefined || typeof outcome.value === "string") resolved.set(name, { value: outcome.value })
        else resolved.set(name, { failed: `plugin '${plugin}' returned ${typeof outcome.value}, not text` })
      }),
    { discard: true }
  )
  return { registerPlaceholders, refreshPlaceholders }
}

/** rebuildModel, then transformModel, on the plugins' view of one outbound call. */
const outboundSeam = ({ table, fold }: HookRunner): HookPipeline["outbound"] => (purpose, request, held) =>
  Effect.gen(function* () {
    if (table.rebuildModel.length === 0 && table.transformModel.length === 0) return { request, rebuiltBy: [], changed: false }
    const acceptsImages = request.model.capabilities.imageInput && (purpose === "work" || purpose === "plan")
    const view = toPluginRequest(request, purpose, acceptsImages)
    const rebuilt = yield* fold("rebuildModel", view, (current) => current, (result, current) => checkRebuild(result, current, held), copyView)
    const transformed = yield* fold("transformModel", rebuilt.value, (current) => current, (result, current) => checkTransform(result, current), copyView)
    if (rebuilt.changedBy.length === 0 && transformed.changedBy.length === 0) return { request, rebuiltBy: [], changed: false }
    const back = fromPluginRequest(transformed.value, request, held, request.model.ref)
    return { request: { ...request, system: back.system, items: back.items }, rebuiltBy: rebuilt.changedBy, changed: true }
  })

/** onCompaction's appends to the prompt or the summary, then rewriteCompaction of the result. */
const compactionSeam = ({ fold }: HookRunner, kind: "prompt" | "summary", text: string, argument: (current: string) => unknown) =>
  Effect.gen(function* () {
    const appended = yield* fold("onCompaction", text, argument, (result, current): Checked<string> => {
      const checked = checkCompaction(result, kind)
      return checked._tag === "Use" ? { _tag: "Use", value: `${current.replace(/\n+$/, "")}\n\n${checked.value}` } : checked
    })
    const rewritten = yield* fold("rewriteCompaction", appended.value, (current) => ({ kind, text: current }), (result) => checkRawText(result))
    return rewritten.value
  })

export const makeHookPipeline = (options: PipelineOptions): HookPipeline => {
  const runner = makeHookRunner(options.plugins, options.note, options.budgetMs)
  const { table, fold, observe } = runner
  const sessionInfo = (info: SessionInfo): SessionInfo => ({ workspace: info.workspace, sessionId: info.sessionId, approval: info.approval })
  const responseItems = (message: AssistantMessage) => toPluginRequest({ system: "", items: [message] }, "work", false).items.slice(1)
  return {
    idle: runner.idle && options.plugins.every((plugin) => Object.keys(plugin.plugin.placeholders ?? {}).length === 0),
    notes: runner.notes,
    ...pluginPlaceholders(options.plugins, runner),
    sessionStarted: (info) => guardingConfig(runner, options.configFile, "onSessionStarted", observe("onSessionStarted", sessionInfo(info))),
    sessionEnded: (info) => guardingConfig(runner, options.configFile, "onSessionEnded", observe("onSessionEnded", sessionInfo(info))),
    promptAppends: (mode) =>
      Effect.gen(function* () {
        const appends: Array<string> = []
        yield* fold("onPrompt", undefined as string | undefined, () => ({ mode }), (result) => {
          const checked = checkPromptAppend(result)
          if (checked._tag === "Use") appends.push(checked.value)
          return checked
        })
        return appends
      }),
    rewritePrompt: (mode, text) =>
      Effect.map(fold("rewritePrompt", text, (current) => ({ mode, text: current }), (result) => checkRawText(result)), (folded) => folded.value),
    userMessage: (text) => Effect.map(fold("onUserMessage", text, (current) => ({ text: current }), (result) => checkUserMessage(result)), (folded) => folded.value),
    turnStarted: (turn) => observe("onTurnStarted", { text: turn.text, mode: turn.mode, ...agentField(turn.agent) }),
    turnFinished: (turn) => observe("onTurnFinished", { text: turn.text, mode: turn.mode, stopReason: turn.stopReason, ...agentField(turn.agent) }),
    outbound: outboundSeam(runner),
    modelResponse: (purpose, message) =>
      table.onModelResponse.length === 0
        ? Effect.void
        : observe("onModelResponse", { purpose, finishReason: message.finishReason ?? "stop", items: responseItems(message), usage: message.usage }),
    ...toolSeams(runner),
    compactionPrompt: (prompt) => compactionSeam(runner, "prompt", prompt, (current) => ({ prompt: current })),
    compactionSummary: (prompt, summary) => compactionSeam(runner, "summary", summary, (current) => ({ prompt, summary: current }))
  }
}
