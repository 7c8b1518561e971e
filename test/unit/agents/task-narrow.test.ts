import { describe, expect, it } from "vitest"
import type { TranscriptItem } from "../../../src/session/items.ts"
import { childToolNames, filesChangedLine, taskIndex } from "../../../src/tools/task-narrow.ts"

const parentWork = ["read", "grep", "edit", "write", "bash", "task", "todowrite", "todoread", "question", "mcp__files__read", "mcp__files__write"]
const planTools = ["read", "grep", "task", "plan", "propose_plan", "todowrite", "todoread", "mcp__files__read"]

describe("childToolNames", () => {
  it.each([
    { case: "no list: the parent's tools but the root's own", tools: undefined, mode: parentWork, depthOk: true, want: ["read", "grep", "edit", "write", "bash", "task", "mcp__files__read", "mcp__files__write"] },
    { case: "a list narrows", tools: ["read", "bash"], mode: parentWork, depthOk: true, want: ["read", "bash"] },
    { case: "a list never widens past the parent", tools: ["read", "web_fetch", "bash_start"], mode: parentWork, depthOk: true, want: ["read"] },
    { case: "wildcards", tools: ["mcp__files__*"], mode: parentWork, depthOk: true, want: ["mcp__files__read", "mcp__files__write"] },
    { case: "at the depth limit: no task", tools: undefined, mode: parentWork, depthOk: false, want: ["read", "grep", "edit", "write", "bash", "mcp__files__read", "mcp__files__write"] },
    { case: "a plan child of a work parent: plan's tools only, no plan file, no hand-over", tools: ["*"], mode: planTools, depthOk: true, want: ["read", "grep", "task", "mcp__files__read"] },
    { case: "a todo list belongs to the session", tools: ["todowrite", "todoread"], mode: parentWork, depthOk: true, want: [] },
    { case: "questions go to the operator from the root only", tools: ["question", "read"], mode: [...parentWork, "question"], depthOk: true, want: ["read"] }
  ])("$case", ({ tools, mode, depthOk, want }) => {
    expect([...childToolNames({ parentTools: parentWork, childModeTools: mode, definition: { tools }, mayStartTasks: depthOk })].sort()).toEqual([...want].sort())
  })

  it("a plan parent: the child's mode offers nothing its parent lacks", () => {
    const parentPlan = ["read", "grep", "task"]
    expect([...childToolNames({ parentTools: parentPlan, childModeTools: parentWork, definition: { tools: undefined }, mayStartTasks: true })].sort()).toEqual(["grep", "read", "task"])
  })
})

describe("taskIndex", () => {
  const call = (id: string, name = "task") => ({ id, name, arguments: {} })
  const items: ReadonlyArray<TranscriptItem> = [
    { _tag: "user", id: "u1", text: "first turn" },
    { _tag: "assistant", id: "a1", text: "", model: "m", toolCalls: [call("old1")] },
    { _tag: "user", id: "u2", text: "second turn" },
    { _tag: "assistant", id: "a2", text: "", model: "m", toolCalls: [call("r1", "read"), call("t1"), call("t2")] },
    { _tag: "user", id: "u3", text: "reminder", synthetic: "reminder" },
    { _tag: "assistant", id: "a3", text: "", model: "m", toolCalls: [call("t3")] }
  ]
  it("counts the task calls of the current turn, in order, across steps and synthetic reminders", () => {
    expect([taskIndex(items, "t1"), taskIndex(items, "t2"), taskIndex(items, "t3")]).toEqual([1, 2, 3])
  })
})

describe("filesChangedLine", () => {
  it("names the files or says none", () => {
    expect(filesChangedLine([])).toBe("Files changed: none")
    expect(filesChangedLine(["a.ts", "b.ts"])).toBe("Files changed: a.ts, b.ts")
  })
})
