import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { plainPalette } from "../../../src/terminal/colors.ts"
import { makeTurnView } from "../../../src/tui/turn-view.ts"
import type { Classification } from "../../../src/approval/classification.ts"

const classification: Classification = { risk: "medium", authority: "write", scope: "workspace", summary: "edit a.txt", paths: [] }

const setup = () => {
  const committed: Array<string> = []
  const partials: Array<string> = []
  const activities: Array<string | undefined> = []
  const view = makeTurnView(
    { commit: (lines) => committed.push(...lines), partial: (text) => partials.push(text), activity: (text) => activities.push(text), columns: () => 80 },
    plainPalette
  )
  return { view, committed, partials, activities }
}

const result = (callId: string, name: string, text: string, isError = false) => ({ _tag: "tool_result" as const, id: "r", callId, name, text, isError })

describe("turn view", () => {
  it("commits finished lines and keeps the unfinished one live", () => {
    const { view, committed, partials } = setup()
    Effect.runSync(view.textDelta("Hello **wor"))
    Effect.runSync(view.textDelta("ld**\nsecond"))
    expect(committed).toEqual(["Hello **world**"])
    expect(partials.at(-1)).toBe("second")
    Effect.runSync(view.assistantMessage({ _tag: "assistant", id: "a", text: "", model: "m" }))
    expect(committed).toEqual(["Hello **world**", "second"])
    expect(partials.at(-1)).toBe("")
  })

  it("collapses reasoning to one line", () => {
    const { view, committed } = setup()
    Effect.runSync(view.reasoningDelta("First I look"))
    Effect.runSync(view.reasoningDelta(" at the code.\nThen more."))
    Effect.runSync(view.textDelta("Answer\n"))
    expect(committed[0]).toMatch(/^✻ thought for \d+\.\d s · First I look at the code\.$/)
    expect(committed[1]).toBe("Answer")
  })

  it("shows a call, its result line and its diff; a denial instead of a diff", () => {
    const { view, committed } = setup()
    const call = { id: "c1", name: "edit", arguments: { path: "a.txt", old_string: "old", new_string: "new" } }
    Effect.runSync(view.toolStarted(call))
    Effect.runSync(view.toolFinished(result("c1", "edit", "edited a.txt"), 12))
    expect(committed).toEqual(["● edit a.txt", "  ⎿ ok · 1 line · 12 bytes · 12 ms", "    - old", "    + new"])
    committed.length = 0
    Effect.runSync(view.toolStarted({ ...call, id: "c2" }))
    Effect.runSync(view.approval({ callId: "c2", toolName: "edit", outcome: "denied", by: "operator", approvalMode: "default", classification }))
    Effect.runSync(view.toolFinished(result("c2", "edit", "The operator denied this call.", true), 3))
    expect(committed).toEqual(["● edit a.txt", "  ⎿ denied · The operator denied this call."])
  })

  it("shows the tail of bash output, and errors in one line", () => {
    const { view, committed } = setup()
    Effect.runSync(view.toolStarted({ id: "b", name: "bash", arguments: { command: "seq 1 10" } }))
    Effect.runSync(view.toolFinished(result("b", "bash", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"), 1500))
    expect(committed).toEqual(["● bash seq 1 10", "  ⎿ ok · 10 lines · 21 bytes · 1.5 s", "    5", "    6", "    7", "    8", "    9", "    10"])
    committed.length = 0
    Effect.runSync(view.toolStarted({ id: "r", name: "read", arguments: { path: "nope" } }))
    Effect.runSync(view.toolFinished(result("r", "read", "nope: no such file\nmore", true), 2))
    expect(committed).toEqual(["● read nope", "  ⎿ error · nope: no such file · 2 ms"])
  })

  it("shows a running call's progress on its live line, in place, made inert and clipped; nothing once the call finished", () => {
    const { view, committed, activities } = setup()
    const name = "mcp__everything__trigger-long-running-operation"
    Effect.runSync(view.toolStarted({ id: "m", name, arguments: { duration: 10, steps: 5 } }))
    Effect.runSync(view.toolProgress({ callId: "m", toolName: name, progress: 2, total: 5 }))
    Effect.runSync(view.toolProgress({ callId: "m", toolName: name, progress: 3, total: 5, message: "step\x1b[2J three" }))
    Effect.runSync(view.toolProgress({ callId: "m", toolName: name, progress: 4, total: 5, message: "y".repeat(200) }))
    // 80 columns less what the live line adds around it: the name gives way to the progress.
    expect(activities.slice(0, 3)).toEqual([
      `running ${name}…`,
      "running mcp__everything__trigger-long-running-ope… · 2/5",
      "running mcp__everything__trigger… · 3/5 · step␛[2J three"
    ])
    expect(activities.slice(0, 3).every((line) => (line?.length ?? 0) <= 80 - 24)).toBe(true)
    expect(activities[3]).toBe(`running mcp__everything_… · 4/5 · ${"y".repeat(21)}…`)
    // The call's line was written once; progress never adds lines.
    expect(committed).toEqual([`● ${name} {"duration":10,"steps":5}`])
    Effect.runSync(view.toolFinished(result("m", name, "done"), 10_000))
    const after = activities.length
    Effect.runSync(view.toolProgress({ callId: "m", toolName: name, progress: 5, total: 5 }))
    expect(activities.length).toBe(after)
    expect(activities.at(-1)).toBeUndefined()
  })

  it("marks a cancelled turn after what streamed", () => {
    const { view, committed } = setup()
    Effect.runSync(view.textDelta("half an ans"))
    view.interrupted()
    expect(committed).toEqual(["half an ans", "⏹ cancelled · the partial answer is kept"])
  })
})
