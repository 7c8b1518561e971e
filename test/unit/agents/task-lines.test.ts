import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { makeTurnView, type TurnSurface } from "../../../src/tui/turn-view.ts"
import { plainPalette } from "../../../src/terminal/colors.ts"
import { makeTextRenderer } from "../../../src/cli/render/text.ts"

const surface = () => {
  const committed: Array<string> = []
  let live: ReadonlyArray<string> = []
  const shape: TurnSurface = {
    commit: (lines) => committed.push(...lines),
    partial: () => {},
    activity: () => {},
    columns: () => 100,
    agents: (lines) => {
      live = lines
    }
  }
  return { shape, committed, live: () => live }
}

const explore = [{ callId: "call_a", index: 1, name: "explore" }] as const
const deeper = [...explore, { callId: "call_b", index: 1, name: "general" }] as const

describe("the terminal's subagent lines", () => {
  it("shows each child live (its tool, its steps), nested ones indented, and collapses a finished one to one line", () => {
    const { shape, committed, live } = surface()
    const view = makeTurnView(shape, plainPalette)
    const child = view.child?.(explore)
    expect(child).toBeDefined()
    if (child === undefined) return
    Effect.runSync(child.assistantMessage({ _tag: "assistant", id: "m1", text: "", model: "m", toolCalls: [] }))
    Effect.runSync(child.toolStarted({ id: "call_r", name: "read", arguments: { path: "src/a.ts" } }))
    expect(live()).toEqual(["  ↳ task 1 › explore · 1 step · read src/a.ts"])
    const grandchild = child.child?.(deeper)
    if (grandchild === undefined) throw new Error("no grandchild renderer")
    expect(live()[1]).toBe("    ↳ task 1 › general · 0 steps · thinking")
    Effect.runSync(child.toolFinished({ _tag: "tool_result", id: "r1", callId: "call_r", name: "read", text: "x", isError: false }, 3))
    // The grandchild's task call ends in the child: its line goes.
    Effect.runSync(child.toolFinished({ _tag: "tool_result", id: "r2", callId: "call_b", name: "task", text: "done", isError: false }, 3))
    expect(live()).toEqual(["  ↳ task 1 › explore · 1 step · thinking"])
    Effect.runSync(view.toolStarted({ id: "call_a", name: "task", arguments: { description: "look" } }))
    Effect.runSync(view.toolFinished({ _tag: "tool_result", id: "r3", callId: "call_a", name: "task", text: "found", isError: false }, 10))
    expect(live()).toEqual([])
    expect(committed).toContain("  ⎿ task 1 › explore · 1 step · 2 tool calls")
    expect(committed[0]).toBe("● task general · look")
  })
})

describe("crystal run's text log of a subagent", () => {
  it("marks each of its tool lines with its path and prints none of its text on stdout", () => {
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const view = makeTextRenderer(plainPalette, { stdout: false }, { stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text), now: () => 0 })
    const child = view.child?.(deeper)
    if (child === undefined) throw new Error("no child log")
    Effect.runSync(child.textDelta("the child's own words"))
    Effect.runSync(child.toolStarted({ id: "c", name: "read", arguments: { path: "a.ts" } }))
    Effect.runSync(child.toolFinished({ _tag: "tool_result", id: "r", callId: "c", name: "read", text: "Denied: no", isError: true }, 1))
    expect(stdout).toEqual([])
    expect(stderr.join("")).toBe("[task 1 › explore › task 1 › general] → read a.ts\n[task 1 › explore › task 1 › general]   ✗ Denied: no\n")
  })
})
