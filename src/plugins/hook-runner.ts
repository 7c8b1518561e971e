/**
 * Running the plugins' hooks for the pipeline (pipeline.ts): every hook bound once at load, called
 * in load order under the time budget (hook-call.ts), each result checked by the caller's rule;
 * a throw, a timeout or a result that oversteps is a note naming the plugin, the hook and the
 * rule, and the next hook runs.
 */
import * as Effect from "effect/Effect"
import { hookNames, rawHookNames, type HookName, type PluginHooks, type PluginRawHooks, type RawHookName } from "./api.ts"
import { callHook, hookBudgetMs, type HookOutcome } from "./hook-call.ts"
import type { Checked } from "./hook-rules.ts"
import type { LoadedPlugin } from "./loaded.ts"

export interface Bound {
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

export type HookTable = Readonly<Record<HookName | RawHookName, ReadonlyArray<Bound>>>

export interface PipelineNote {
  /** The plugin (or plugins) the note is about. */
  readonly plugins: ReadonlyArray<string>
  readonly text: string
}

export type FailedOutcome = Exclude<HookOutcome, { _tag: "Returned" }>

export interface HookRunner {
  readonly table: HookTable
  /** No plugin has a hook or raw hook. */
  readonly idle: boolean
  readonly budgetMs: number
  readonly notes: () => ReadonlyArray<PipelineNote>
  readonly note: (plugin: string | ReadonlyArray<string>, text: string) => Effect.Effect<void>
  readonly skipped: (plugin: string, hook: string, rule: string) => Effect.Effect<void>
  /** A hook threw or ran out of time; `then` says what happens instead ("skipped"). */
  readonly failureNote: (plugin: string, hook: string, outcome: FailedOutcome, then?: string) => Effect.Effect<void>
  /** Runs each bound hook in order on the current value; `check` decides what a result becomes. */
  readonly fold: <A>(
    hook: HookName | RawHookName,
    initial: A,
    argument: (current: A) => unknown,
    check: (result: unknown, current: A) => Checked<A>,
    copy?: (argument: unknown) => unknown
  ) => Effect.Effect<{ readonly value: A; readonly changedBy: ReadonlyArray<string> }>
  /** Hooks that only observe: called in order, results ignored. */
  readonly observe: (hook: HookName, argument: unknown) => Effect.Effect<void>
}

/** `noteOut`: where notes go (the terminal, stderr, a JSON event); every note is also kept for /plugins. */
export const makeHookRunner = (plugins: ReadonlyArray<LoadedPlugin>, noteOut: (text: string) => Effect.Effect<void>, budgetMs = hookBudgetMs): HookRunner => {
  const notes: Array<PipelineNote> = []
  const table = Object.fromEntries([
    ...hookNames.map((name) => [name, bind(plugins, (plugin) => plugin.plugin.hooks as PluginHooks | undefined, name)] as const),
    ...rawHookNames.map((name) => [name, bind(plugins, (plugin) => plugin.plugin.rawHooks as PluginRawHooks | undefined, name)] as const)
  ]) as HookTable

  const note = (plugin: string | ReadonlyArray<string>, text: string) =>
    Effect.suspend(() => (notes.push({ plugins: typeof plugin === "string" ? [plugin] : plugin, text }), noteOut(text)))

  const skipped = (plugin: string, hook: string, rule: string) => note(plugin, `Plugin '${plugin}': ${hook} result skipped: ${rule}.`)

  const failureNote = (plugin: string, hook: string, outcome: FailedOutcome, then = "skipped") =>
    outcome._tag === "Threw"
      ? note(plugin, `Plugin '${plugin}': ${hook} threw (${outcome.message}); ${then}.`)
      : note(plugin, `Plugin '${plugin}': ${hook} did not finish within ${outcome.budgetMs / 1000} s; ${then}.`)

  const fold: HookRunner["fold"] = (hook, initial, argument, check, copy) =>
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

  const observe = (hook: HookName, argument: unknown) =>
    Effect.forEach(
      table[hook],
      ({ plugin, invoke }) =>
        Effect.flatMap(callHook(invoke, argument, budgetMs), (outcome) => (outcome._tag === "Returned" ? Effect.void : failureNote(plugin.name, hook, outcome))),
      { discard: true }
    )

  return {
    table,
    idle: Object.values(table).every((bound) => bound.length === 0),
    budgetMs,
    notes: () => notes,
    note,
    skipped,
    failureNote,
    fold,
    observe
  }
}
