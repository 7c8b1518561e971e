/**
 * Pure decisions of the `task` tool: which tools a child gets (never one its parent lacks), the
 * task call's number in its parent's turn, and the one-line summary of the files a child changed.
 */
import type { AgentDefinition } from "../agents/definition.ts"
import { narrowTools } from "../agents/narrow.ts"
import type { TranscriptItem } from "../session/items.ts"
import { taskToolName } from "./task-tool.ts"
import { planToolName } from "./plan-tool.ts"
import { proposePlanToolName } from "./propose-plan-tool.ts"
import { questionToolName } from "./question-tool.ts"
import { todoToolNames } from "./todo-tools.ts"

/**
 * Tools a child never gets, whatever its definition says: the plan hand-over and the plan file
 * belong to the root session (propose_plan would switch its mode), the todo list to the session,
 * and `question` asks the root's operator directly, with no agent path to say who is asking.
 */
export const rootOnlyTools: ReadonlySet<string> = new Set([proposePlanToolName, planToolName, questionToolName, ...Object.values(todoToolNames)])

export interface ChildCatalogInput {
  /** Names of the parent's catalog as it is now (its mode, --disable-tool, tool sets, MCP). */
  readonly parentTools: ReadonlyArray<string>
  /** Names the child's own mode offers from the same session (plan: nothing that writes). */
  readonly childModeTools: ReadonlyArray<string>
  readonly definition: Pick<AgentDefinition, "tools">
  /** False at the depth limit: the child cannot start children of its own. */
  readonly mayStartTasks: boolean
}

/** The names the child may call: the parent's ∩ the child mode's ∩ the agent's list, less the root's own. */
export const childToolNames = (input: ChildCatalogInput): ReadonlySet<string> => {
  const parent = new Set(input.parentTools)
  const candidates = input.childModeTools.filter(
    (name) => parent.has(name) && !rootOnlyTools.has(name) && (name !== taskToolName || input.mayStartTasks)
  )
  return new Set(narrowTools(candidates, input.definition.tools))
}

/** 1-based: the call's place among the `task` calls since the turn's (non-synthetic) user message. */
export const taskIndex = (items: ReadonlyArray<TranscriptItem>, callId: string): number => {
  let start = 0
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]
    if (item?._tag === "user" && item.synthetic === undefined) {
      start = index
      break
    }
  }
  const ids: Array<string> = []
  for (const item of items.slice(start)) {
    if (item._tag !== "assistant") continue
    for (const call of item.toolCalls ?? []) if (call.name === taskToolName) ids.push(call.id)
  }
  const position = ids.indexOf(callId)
  return position === -1 ? ids.length + 1 : position + 1
}

/** `Files changed: a.ts, b.ts` or `Files changed: none`. */
export const filesChangedLine = (files: ReadonlyArray<string>): string => `Files changed: ${files.length === 0 ? "none" : files.join(", ")}`
