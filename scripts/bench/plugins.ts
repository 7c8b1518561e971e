/// <reference types="bun" />
/**
 * What plugins cost a turn: the hook calls of one turn with one tool call (user message, turn
 * start, two outbound calls, two responses, the call, its approval, its result, turn end) through
 * the real pipeline, with one plugin holding a no-op hook on every event, against the same seams
 * with no plugin (the idle pipeline) in the same run. Wall and CPU time per simulated turn.
 * Usage: bun scripts/bench/plugins.ts [--turns N]
 */
import * as Effect from "effect/Effect"
import type { PluginHooks } from "../../src/plugins/api.ts"
import { hookNames } from "../../src/plugins/api.ts"
import { makeHookPipeline, type HookPipeline } from "../../src/plugins/pipeline.ts"
import type { ModelRequest } from "../../src/providers/model-client.ts"
import type { AssistantMessage, TranscriptItem } from "../../src/session/items.ts"
import { flag, median } from "./measure.ts"

const turns = flag("--turns", 2000)

const noOp = Object.fromEntries(hookNames.map((name) => [name, () => undefined])) as PluginHooks
const asyncNoOp = Object.fromEntries(hookNames.map((name) => [name, async () => undefined])) as PluginHooks
const withPlugin = (hooks: PluginHooks) =>
  makeHookPipeline({ plugins: [{ name: "noop", folder: "noop", dir: "/noop", entry: "/noop/index.js", plugin: { hooks } }], note: () => Effect.void })
const pipelines = { none: makeHookPipeline({ plugins: [], note: () => Effect.void }), noOp: withPlugin(noOp), asyncNoOp: withPlugin(asyncNoOp) }

// A transcript of realistic size: 40 exchanges of text, a call and its result.
const items: Array<TranscriptItem> = []
for (let i = 0; i < 40; i++) {
  items.push({ _tag: "user", id: `u${i}`, text: "please look at the file and fix the bug ".repeat(8) })
  items.push({ _tag: "assistant", id: `a${i}`, text: "looking", model: "local/m", toolCalls: [{ id: `c${i}`, name: "read", arguments: { path: "src/a.ts" } }] })
  items.push({ _tag: "tool_result", id: `r${i}`, callId: `c${i}`, name: "read", text: "1\tconst a = 1\n".repeat(60), isError: false })
}
const request: ModelRequest = {
  system: "You are a coding agent. ".repeat(200),
  items,
  tools: [],
  model: { ref: "local/m", id: "m", provider: { name: "local", protocol: "openai-chat", baseURL: "http://127.0.0.1:1", apiKeyEnv: [], headers: {} }, capabilities: { contextWindow: 1e5, maxOutputTokens: 1e4, imageInput: false, reasoning: false }, listed: true }
}
const response: AssistantMessage = { _tag: "assistant", id: "resp", text: "done", model: "local/m", toolCalls: [{ id: "c", name: "read", arguments: { path: "a" } }] }
const call = { id: "c", name: "read", arguments: { path: "a" } }
const held = new Map()

const oneTurn = (hooks: HookPipeline) =>
  Effect.gen(function* () {
    const text = yield* hooks.userMessage("fix the bug")
    yield* hooks.turnStarted({ text, mode: "work" })
    for (let step = 0; step < 2; step++) {
      yield* hooks.outbound("work", request, held)
      yield* hooks.modelResponse("work", response)
    }
    const rewritten = yield* hooks.toolCall(call)
    yield* hooks.approval(rewritten, { risk: "low", authority: "read", scope: "workspace", summary: "read a", paths: [] })
    yield* hooks.toolResult(rewritten, { text: "1\tconst a = 1", images: [] }, { acceptsImages: false, held, attach: undefined })
    yield* hooks.turnFinished({ text, mode: "work", stopReason: "answered" })
  })

const measure = async (hooks: HookPipeline) => {
  const wallStart = performance.now()
  const cpuStart = process.cpuUsage()
  await Effect.runPromise(Effect.forEach(Array.from({ length: 200 }), () => oneTurn(hooks), { discard: true }))
  const cpu = process.cpuUsage(cpuStart)
  return { wall: (performance.now() - wallStart) / 200, cpu: (cpu.user + cpu.system) / 1000 / 200 }
}

type Sample = { readonly wall: number; readonly cpu: number }
const samples: Record<keyof typeof pipelines, Array<Sample>> = { none: [], noOp: [], asyncNoOp: [] }
for (let i = 0; i < Math.ceil(turns / 200) + 2; i++) {
  for (const key of Object.keys(pipelines) as Array<keyof typeof pipelines>) {
    const sample = await measure(pipelines[key])
    if (i >= 2) samples[key].push(sample)
  }
}
const med = (key: keyof typeof pipelines, field: "wall" | "cpu") => median(samples[key].map((sample) => sample[field]))
const us = (value: number) => `${(value * 1000).toFixed(0)} µs`
console.log(`per turn (1 tool call, 11 hook events; ${samples.none.length} batches of 200 turns; target: hooks cost ≤ 1 ms a turn)`)
console.log(`  no plugins                          wall ${us(med("none", "wall"))}  cpu ${us(med("none", "cpu"))}`)
for (const [key, label] of [["noOp", "a no-op hook on every event"], ["asyncNoOp", "an async no-op hook on every event"]] as const) {
  console.log(`  ${label.padEnd(35)} wall ${us(med(key, "wall"))}  cpu ${us(med(key, "cpu"))}  → +${us(med(key, "wall") - med("none", "wall"))} wall, +${us(med(key, "cpu") - med("none", "cpu"))} cpu`)
}
