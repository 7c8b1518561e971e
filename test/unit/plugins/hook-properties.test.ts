/**
 * Properties over random hook outputs (seeded, so a failure repeats): ordinary hooks never leave
 * a call below the host's risk, and a call a hook rewrote never runs without the approval of the
 * call as rewritten.
 */
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { describe, expect, it } from "vitest"
import type { Classification, Risk } from "../../../src/approval/classification.ts"
import { executeToolCall } from "../../../src/engine/executor.ts"
import type { ApprovalRequest } from "../../../src/engine/operator.ts"
import { PluginLoader } from "../../../src/plugins/plugin-loader.ts"
import * as p from "../../../src/tools/params.ts"
import { defineTool, everyMode } from "../../../src/tools/tool.ts"
import { engineLayer } from "../../support/engine-layer.ts"
import { pipelineOf, withHooks } from "../../support/plugins.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { tempDir } from "../../support/temp.ts"

/** mulberry32: a small seeded generator. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const risks: ReadonlyArray<Risk> = ["low", "medium", "high", "forbidden"]
const pick = <A>(next: () => number, values: ReadonlyArray<A>): A => values[Math.floor(next() * values.length)] as A

const randomApprovalResult = (next: () => number): unknown =>
  pick(next, [
    () => undefined,
    () => ({ risk: pick(next, risks) }),
    () => ({ ask: pick(next, [true, false, "yes", 1]) }),
    () => ({ risk: pick(next, risks), ask: true }),
    () => ({ allow: true }),
    () => ({ risk: "none" }),
    () => ({ authority: "read", scope: "workspace" }),
    () => "low",
    () => {
      throw new Error("random failure")
    }
  ])()

describe("ordinary approval hooks", () => {
  it("never leave a call below the host's risk, and a failing hook always makes it ask (500 random cases)", async () => {
    const next = random(42)
    for (let round = 0; round < 500; round++) {
      const host: Classification = { risk: pick(next, risks), authority: "write", scope: "workspace", summary: "x", paths: [] }
      const outputs = Array.from({ length: 1 + Math.floor(next() * 3) }, () => next())
      let threw = false
      const plugins = outputs.map((seed, index) =>
        withHooks(`p${index}`, {
          onApproval: () => {
            const result = randomApprovalResult(random(Math.floor(seed * 1e9)))
            return result as never
          }
        })
      )
      // Which hooks throw is decided by their seeds; replay them to know.
      for (const seed of outputs) {
        try {
          randomApprovalResult(random(Math.floor(seed * 1e9)))
        } catch {
          threw = true
        }
      }
      const { pipeline } = pipelineOf(plugins)
      const final = await Effect.runPromise(pipeline.approval({ id: "c", name: "t", arguments: {} }, host))
      expect(risks.indexOf(final.risk)).toBeGreaterThanOrEqual(risks.indexOf(host.risk))
      expect({ authority: final.authority, scope: final.scope, summary: final.summary }).toEqual({ authority: "write", scope: "workspace", summary: "x" })
      if (threw) expect(final.ask).toBe(true)
    }
  })
})

describe("a call a hook rewrote", () => {
  it("runs only as rewritten, and only after that call's own approval (300 random cases)", async () => {
    const workspace = await tempDir()
    const ran: Array<string> = []
    const tool = (name: string, authority: "read" | "write") =>
      defineTool({
        name,
        description: name,
        parameters: p.object({ key: p.string() }),
        modes: everyMode,
        classify: ({ key }) => Effect.succeed({ risk: authority === "read" ? "low" : "medium", authority, scope: "workspace", summary: `${name} ${key}`, paths: [] }),
        run: ({ key }) => Effect.sync(() => (ran.push(`${name} ${key}`), { text: "done" }))
      })
    const next = random(7)
    const asked: Array<ApprovalRequest> = []
    let allow = false
    const rewrite = { current: undefined as unknown }
    const runtime = ManagedRuntime.make(
      engineLayer({
        workspace,
        tools: [tool("look", "read"), tool("write", "write"), tool("wipe", "write")],
        renderer: silentRenderer(),
        operator: {
          confirm: () => Effect.succeed(false),
          askQuestions: () => Effect.succeed({ _tag: "NoOperator" }),
          approve: (request) => Effect.sync(() => (asked.push(request), allow ? { _tag: "AllowOnce" as const } : { _tag: "Deny" as const }))
        },
        plugins: PluginLoader.layerTest([withHooks("rewriter", { onToolCall: () => rewrite.current as never })])
      })
    )
    for (let round = 0; round < 300; round++) {
      ran.length = 0
      asked.length = 0
      allow = next() < 0.5
      const name = pick(next, ["look", "write", "wipe", "nothing"])
      rewrite.current = pick(next, [undefined, { name }, { arguments: { key: `k${round}` } }, { name, arguments: { key: `r${round}` } }, { id: "other", name: "wipe" }, { skip: true }])
      const modelCall = { id: `c${round}`, name: "look", arguments: { key: "m" } }
      await runtime.runPromise(executeToolCall(modelCall, { mode: "work", approval: "default" }))
      const change = rewrite.current as { name?: string; arguments?: { key: string }; id?: string; skip?: boolean } | undefined
      const valid = change !== undefined && change.id === undefined && change.skip === undefined
      const expectedName = valid && change.name !== undefined ? change.name : "look"
      const expectedKey = valid && change.arguments !== undefined ? change.arguments.key : "m"
      for (const run of ran) expect(run).toBe(`${expectedName} ${expectedKey}`)
      if (expectedName === "write" || expectedName === "wipe") {
        // A write asks in the default mode: it ran only if the operator allowed exactly that call.
        expect(asked.map((request) => [request.toolName, request.arguments])).toEqual([[expectedName, { key: expectedKey }]])
        expect(ran.length).toBe(allow ? 1 : 0)
      }
    }
    await runtime.dispose()
  })
})
