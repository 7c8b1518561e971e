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
import { maxRisk, type Classification } from "../approval/classification.ts"
import type { ModelRequest } from "../providers/model-client.ts"
import type { PlaceholderRegistry } from "../prompts/placeholder-registry.ts"
import type { AssistantMessage, ImageRef, ToolCall } from "../session/items.ts"
import type { HookName, PluginHooks, PluginRawHooks, RawHookName, SessionInfo } from "./api.ts"
import { callHook, hookBudgetMs, type HookOutcome } from "./hook-call.ts"
import {
  checkApproval,
  checkCompaction,
  checkPromptAppend,
  checkRawApproval,
  checkRawText,
  checkToolCall,
  checkToolResult,
  checkUserMessage,
  type Checked,
  type ToolResultImage
} from "./hook-rules.ts"
import type { LoadedPlugin } from "./loaded.ts"
import { checkRebuild, checkTransform } from "./model-rules.ts"
import { copyView, fromPluginRequest, pluginImage, toPluginRequest } from "./model-view.ts"

export type Purpose = "work" | "plan" | "side" | "compaction"

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

export interface ToolOutputView {
  readonly text: string
  readonly images: ReadonlyArray<ImageRef>
}

/** New image bytes from onToolResult go through the session's media path (markers, limits, store). */
export type AttachImage = (bytes: Uint8Array, source: string) => Effect.Effect<ImageRef, { readonly message: string }>

export interface HookPipeline {
  /** No plugin has a hook or raw hook: every seam returns its input at once. */
  readonly idle: boolean
  readonly sessionStarted: (info: SessionInfo) => Effect.Effect<void>
  readonly sessionEnded: (info: SessionInfo) => Effect.Effect<void>
  /** onPrompt's texts for a mode's system text, in load order. */
  readonly promptAppends: (mode: "work" | "plan" | "review") => Effect.Effect<ReadonlyArray<string>>
  readonly rewritePrompt: (mode: "work" | "plan" | "review" | "compaction", text: string) => Effect.Effect<string>
  readonly userMessage: (text: string) => Effect.Effect<string>
  readonly turnStarted: (turn: { readonly text: string; readonly mode: string }) => Effect.Effect<void>
  readonly turnFinished: (turn: { readonly text: string; readonly mode: string; readonly stopReason: string }) => Effect.Effect<void>
  /** rebuildModel, then transformModel, on one outbound call; `held` is every image the session holds. */
  readonly outbound: (purpose: Purpose, request: ModelRequest, held: ReadonlyMap<string, ImageRef>) => Effect.Effect<OutboundRequest>
  readonly modelResponse: (purpose: Purpose, message: AssistantMessage) => Effect.Effect<void>
  /** onToolCall: the call to classify and run (same id); a rewrite is noted. */
  readonly toolCall: (call: ToolCall) => Effect.Effect<ToolCall>
  /** onApproval, then rewriteApproval: the classification the policy decides from. */
  readonly approval: (call: ToolCall, classification: Classification) => Effect.Effect<Classification>
  readonly toolResult: (
    call: ToolCall,
    output: ToolOutputView,
    turn: { readonly acceptsImages: boolean; readonly held: ReadonlyMap<string, ImageRef>; readonly attach: AttachImage | undefined }
  ) => Effect.Effect<ToolOutputView>
  /** onCompaction's appends to the compaction prompt, then rewriteCompaction of it. */
  readonly compactionPrompt: (prompt: string) => Effect.Effect<string>
  /** onCompaction's appends to the summary, then rewriteCompaction of it: the text that is stored. */
  readonly compactionSummary: (prompt: string, summary: string) => Effect.Effect<string>
  /** Registers every plugin's placeholders (P3: host names refused, the first plugin keeps a duplicate). */
  readonly registerPlaceholders: (registry: PlaceholderRegistry) => Effect.Effect<void>
  /** Resolves the registered placeholders (each under the budget) for the next composition. */
  readonly refreshPlaceholders: Effect.Effect<void>
  /** Every note the pipeline wrote, oldest first, with the plugin it concerns. */
  readonly notes: () => ReadonlyArray<{ readonly plugins: ReadonlyArray<string>; readonly text: string }>
}

interface Bound {
  readonly plugin: LoadedPlugin
  readonly invoke: (argument: unknown) => unknown
}

const bind = (plugins: ReadonlyArray<LoadedPlugin>, pick: (plugin: LoadedPlugin) => object | undefined, name: string): ReadonlyArray<Bound> =>
  plugins.flatMap((plugin) => {
    const owner = pick(plugin)
    const fn = owner === undefined ? undefined : (owner as Record<string, unknown>)[name]
    // Bound once at load: replacing a hook on the object later changes nothing.
    return typeof fn === "function" ? [{ plugin, invoke: (argument: unknown) => (fn as (a: unknown) => unknown).call(owner, argument) }] : []
  })

const readFileOrUndefined = (file: string): Buffer | undefined => {
  try {
    return fs.readFileSync(file)
  } catch {
    return undefined
  }
}

export const makeHookPipeline = (options: PipelineOptions): HookPipeline => {
  const budgetMs = options.budgetMs ?? hookBudgetMs
  const notes: Array<{ plugins: ReadonlyArray<string>; text: string }> = []
  const hooksOf = (name: HookName) => bind(options.plugins, (plugin) => plugin.plugin.hooks as PluginHooks | undefined, name)
  const rawOf = (name: RawHookName) => bind(options.plugins, (plugin) => plugin.plugin.rawHooks as PluginRawHooks | undefined, name)
  const table = {
    onSessionStarted: hooksOf("onSessionStarted"),
    onSessionEnded: hooksOf("onSessionEnded"),
    onPrompt: hooksOf("onPrompt"),
    onUserMessage: hooksOf("onUserMessage"),
    onTurnStarted: hooksOf("onTurnStarted"),
    onTurnFinished: hooksOf("onTurnFinished"),
    transformModel: hooksOf("transformModel"),
    onModelResponse: hooksOf("onModelResponse"),
    onToolCall: hooksOf("onToolCall"),
    onToolResult: hooksOf("onToolResult"),
    onApproval: hooksOf("onApproval"),
    onCompaction: hooksOf("onCompaction"),
    rebuildModel: rawOf("rebuildModel"),
    rewritePrompt: rawOf("rewritePrompt"),
    rewriteCompaction: rawOf("rewriteCompaction"),
    rewriteApproval: rawOf("rewriteApproval")
  } satisfies Record<HookName | RawHookName, ReadonlyArray<Bound>>
  const idle = Object.values(table).every((bound) => bound.length === 0)

  /** `plugin`: the plugin (or plugins) the note is about. */
  const note = (plugin: string | ReadonlyArray<string>, text: string) =>
    Effect.suspend(() => (notes.push({ plugins: typeof plugin === "string" ? [plugin] : plugin, text }), options.note(text)))

  const skipped = (plugin: string, hook: string, rule: string) => note(plugin, `Plugin '${plugin}': ${hook} result skipped: ${rule}.`)

  const failureNote = (plugin: string, hook: string, outcome: Exclude<HookOutcome, { _tag: "Returned" }>, then = "skipped") =>
    outcome._tag === "Threw"
      ? note(plugin, `Plugin '${plugin}': ${hook} threw (${outcome.message}); ${then}.`)
      : note(plugin, `Plugin '${plugin}': ${hook} did not finish within ${outcome.budgetMs / 1000} s; ${then}.`)

  /** Runs each bound hook in order on the current value; `check` decides what a result becomes. */
  const fold = <A>(
    hook: HookName | RawHookName,
    initial: A,
    argument: (current: A) => unknown,
    check: (result: unknown, current: A) => Checked<A>,
    copy?: (argument: unknown) => unknown
  ): Effect.Effect<{ readonly value: A; readonly changedBy: ReadonlyArray<string> }> =>
    Effect.gen(function* () {
      let value = initial
      const changedBy: Array<string> = []
      for (const { plugin, invoke } of table[hook]) {
        const outcome = yield* callHook(invoke, argument(value), budgetMs, copy)
        if (outcome._tag !== "Returned") {
          yield* failureNote(plugin.name, hook, outcome)
          continue
        }
        const checked = check(outcome.value, value)
        if (checked._tag === "Skip") yield* skipped(plugin.name, hook, checked.rule)
        else if (checked._tag === "Use") {
          value = checked.value
          changedBy.push(plugin.name)
        }
      }
      return { value, changedBy }
    })

  /** Hooks that only observe: called in order, results ignored. */
  const observe = (hook: HookName, argument: unknown) =>
    Effect.forEach(
      table[hook],
      ({ plugin, invoke }) =>
        Effect.flatMap(callHook(invoke, argument, budgetMs), (outcome) => (outcome._tag === "Returned" ? Effect.void : failureNote(plugin.name, hook, outcome))),
      { discard: true }
    )

  /** Session hooks may not write config.json (seed 001): a change is put back and noted. */
  const guardingConfig = (hook: HookName, effect: Effect.Effect<void>) =>
    Effect.gen(function* () {
      const file = options.configFile
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

  const sessionInfo = (info: SessionInfo): SessionInfo => ({ workspace: info.workspace, sessionId: info.sessionId, approval: info.approval })

  const rawText = (hook: "rewritePrompt" | "rewriteCompaction", text: string, argument: (current: string) => unknown) =>
    Effect.map(fold(hook, text, argument, (result) => checkRawText(result)), (folded) => folded.value)

  const responseItems = (message: AssistantMessage) => toPluginRequest({ system: "", items: [message] }, "work", false).items.slice(1)

  /** Plugin placeholders the registry took, and what each resolved to at the latest refresh. */
  const placeholders: Array<{ readonly plugin: string; readonly name: string; readonly resolve: () => unknown }> = []
  const resolved = new Map<string, { readonly value: string | undefined } | { readonly failed: string }>()
  const registerPlaceholders = (registry: PlaceholderRegistry) =>
    Effect.forEach(
      options.plugins,
      (plugin) =>
        Effect.forEach(
          Object.entries(plugin.plugin.placeholders ?? {}),
          ([name, resolve]) => {
            if (typeof resolve !== "function") return Effect.void
            const registration = registry.register(plugin.name, name, () => {
              const latest = resolved.get(name)
              if (latest !== undefined && "failed" in latest) throw new Error(latest.failed)
              return latest?.value
            })
            if (registration._tag === "Refused") return note(plugin.name, registration.note)
            placeholders.push({ plugin: plugin.name, name, resolve: () => (resolve as () => unknown).call(plugin.plugin.placeholders) })
            return Effect.void
          },
          { discard: true }
        ),
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

  return {
    idle: idle && options.plugins.every((plugin) => Object.keys(plugin.plugin.placeholders ?? {}).length === 0),
    notes: () => notes,
    registerPlaceholders,
    refreshPlaceholders,
    sessionStarted: (info) => guardingConfig("onSessionStarted", observe("onSessionStarted", sessionInfo(info))),
    sessionEnded: (info) => guardingConfig("onSessionEnded", observe("onSessionEnded", sessionInfo(info))),
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
    rewritePrompt: (mode, text) => rawText("rewritePrompt", text, (current) => ({ mode, text: current })),
    userMessage: (text) =>
      Effect.map(
        fold("onUserMessage", text, (current) => ({ text: current }), (result) => checkUserMessage(result)),
        (folded) => folded.value
      ),
    turnStarted: (turn) => observe("onTurnStarted", { text: turn.text, mode: turn.mode }),
    turnFinished: (turn) => observe("onTurnFinished", { text: turn.text, mode: turn.mode, stopReason: turn.stopReason }),
    outbound: (purpose, request, held) =>
      Effect.gen(function* () {
        if (table.rebuildModel.length === 0 && table.transformModel.length === 0) return { request, rebuiltBy: [], changed: false }
        const acceptsImages = request.model.capabilities.imageInput && (purpose === "work" || purpose === "plan")
        const view = toPluginRequest(request, purpose, acceptsImages)
        const rebuilt = yield* fold("rebuildModel", view, (current) => current, (result, current) => checkRebuild(result, current, held), copyView)
        const transformed = yield* fold("transformModel", rebuilt.value, (current) => current, (result, current) => checkTransform(result, current), copyView)
        if (rebuilt.changedBy.length === 0 && transformed.changedBy.length === 0) return { request, rebuiltBy: [], changed: false }
        const back = fromPluginRequest(transformed.value, request, held, request.model.ref)
        return { request: { ...request, system: back.system, items: back.items }, rebuiltBy: rebuilt.changedBy, changed: true }
      }),
    modelResponse: (purpose, message) =>
      table.onModelResponse.length === 0
        ? Effect.void
        : observe("onModelResponse", { purpose, finishReason: message.finishReason ?? "stop", items: responseItems(message), usage: message.usage }),
    toolCall: (call) =>
      Effect.gen(function* () {
        if (table.onToolCall.length === 0) return call
        const folded = yield* fold(
          "onToolCall",
          { name: call.name, arguments: call.arguments },
          (current) => ({ id: call.id, name: current.name, arguments: current.arguments }),
          (result, current) => checkToolCall(result, { id: call.id, ...current })
        )
        const { name, arguments: args } = folded.value
        if (name === call.name && JSON.stringify(args) === JSON.stringify(call.arguments)) return call
        yield* note(folded.changedBy, `Plugin ${folded.changedBy.map((owner) => `'${owner}'`).join(", ")} rewrote the call ${call.name} → ${name}; it is classified and approved as rewritten.`)
        return { id: call.id, name, arguments: args }
      }),
    approval: (call, classification) =>
      Effect.gen(function* () {
        let current = classification
        for (const { plugin, invoke } of table.onApproval) {
          const argument = { tool: call.name, arguments: call.arguments, risk: current.risk, authority: current.authority, scope: current.scope, summary: current.summary }
          const outcome = yield* callHook(invoke, argument, budgetMs)
          if (outcome._tag !== "Returned") {
            // Fail closed: the hook could only have raised the risk, so asking costs nothing.
            yield* failureNote(plugin.name, "onApproval", outcome, "the call asks the operator")
            current = { ...current, ask: true }
            continue
          }
          const checked = checkApproval(outcome.value, { risk: current.risk, ask: current.ask === true })
          if (checked._tag === "Skip") yield* skipped(plugin.name, "onApproval", checked.rule)
          else if (checked._tag === "Use") current = { ...current, risk: maxRisk(current.risk, checked.value.risk), ...(checked.value.ask ? { ask: true } : {}) }
        }
        const raw = yield* fold("rewriteApproval", current, (value) => value, (result, value) => checkRawApproval(result, value))
        return raw.value
      }),
    toolResult: (call, output, turn) =>
      Effect.gen(function* () {
        if (table.onToolResult.length === 0) return output
        let current = output
        for (const { plugin, invoke } of table.onToolResult) {
          const outcome = yield* callHook(invoke, { id: call.id, name: call.name, text: current.text, images: current.images.map(pluginImage) }, budgetMs)
          if (outcome._tag !== "Returned") {
            yield* failureNote(plugin.name, "onToolResult", outcome)
            continue
          }
          const checked = checkToolResult(outcome.value)
          if (checked._tag === "Skip") {
            yield* skipped(plugin.name, "onToolResult", checked.rule)
            continue
          }
          if (checked._tag === "Keep") continue
          const text = checked.value.text ?? current.text
          let images = current.images
          if (checked.value.images !== undefined) {
            const resolved = yield* resultImages(checked.value.images, turn)
            if (typeof resolved === "string") yield* note(plugin.name, `Plugin '${plugin.name}': onToolResult images ignored: ${resolved}.`)
            else images = resolved
          }
          current = { text, images }
        }
        return current
      }),
    compactionPrompt: (prompt) =>
      Effect.gen(function* () {
        const appended = yield* fold("onCompaction", prompt, (current) => ({ prompt: current }), (result, current) => {
          const checked = checkCompaction(result, "prompt")
          return checked._tag === "Use" ? { _tag: "Use", value: `${current.replace(/\n+$/, "")}\n\n${checked.value}` } : checked
        })
        return yield* rawText("rewriteCompaction", appended.value, (current) => ({ kind: "prompt", text: current }))
      }),
    compactionSummary: (prompt, summary) =>
      Effect.gen(function* () {
        const appended = yield* fold("onCompaction", summary, (current) => ({ prompt, summary: current }), (result, current) => {
          const checked = checkCompaction(result, "summary")
          return checked._tag === "Use" ? { _tag: "Use", value: `${current.replace(/\n+$/, "")}\n\n${checked.value}` } : checked
        })
        return yield* rawText("rewriteCompaction", appended.value, (current) => ({ kind: "summary", text: current }))
      })
  }
}

/** The images a checked onToolResult result names or carries, or why they cannot be used on this turn. */
const resultImages = (
  images: ReadonlyArray<ToolResultImage>,
  turn: { readonly acceptsImages: boolean; readonly held: ReadonlyMap<string, ImageRef>; readonly attach: AttachImage | undefined }
): Effect.Effect<ReadonlyArray<ImageRef> | string> =>
  Effect.gen(function* () {
    if (!turn.acceptsImages) return images.length === 0 ? [] : "this turn's model takes no images (text-only turns ignore them)"
    const refs: Array<ImageRef> = []
    for (const [index, image] of images.entries()) {
      if ("data" in image) {
        if (turn.attach === undefined) return "this session cannot store images"
        const bytes = Buffer.from(image.data, "base64")
        const stored = yield* Effect.either(turn.attach(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), `a plugin's image ${index + 1}`))
        if (stored._tag === "Left") return `images[${index}]: ${stored.left.message}`
        refs.push(stored.right)
      } else {
        const held = turn.held.get(image.id)
        if (held === undefined) return `images[${index}] names an image the session does not hold`
        if (held.mime !== image.mediaType) return `images[${index}] is ${held.mime}, not ${image.mediaType}`
        refs.push(held)
      }
    }
    return refs
  })
