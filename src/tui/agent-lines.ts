/**
 * The terminal's view of running subagents (issue 26): one live line per child, indented by
 * depth, saying which tool it is running and how many model requests it has made; when its task
 * call finishes the line goes and one line is left in the output in its place.
 */
import * as Effect from "effect/Effect"
import { agentPathLabel, type AgentPath } from "../agents/definition.ts"
import { describeCall } from "../cli/render/summary.ts"
import type { RendererShape } from "../engine/renderer.ts"
import { visible, visibleValue } from "../terminal/inert.ts"
import { plural } from "../text/plural.ts"

interface Child {
  readonly path: AgentPath
  steps: number
  calls: number
  tool: string | undefined
}

export interface AgentLines {
  /** The renderer of the child at `path` (and, through its own `child`, of its children); its line shows from now. */
  readonly child: (path: AgentPath) => RendererShape
  /** The task call `callId` finished: its child's line (and its children's) leaves; the one line that stays (none if it was no child's). */
  readonly finished: (callId: string) => ReadonlyArray<string>
  /** The turn ended or was cancelled: no line stays live. */
  readonly clear: () => void
}

const toolWidth = 60

const lineOf = (child: Child): string => {
  const last = child.path.at(-1)
  const label = last === undefined ? "" : agentPathLabel([last])
  const doing = child.tool === undefined ? "thinking" : child.tool
  return `${"  ".repeat(child.path.length)}↳ ${label} · ${plural(child.steps, "step")} · ${doing}`
}

export const makeAgentLines = (publish: (lines: ReadonlyArray<string>) => void): AgentLines => {
  const children = new Map<string, Child>()
  const keyOf = (path: AgentPath) => path.map((step) => step.callId).join("/")
  const show = () => publish([...children.values()].map(lineOf))
  const update = (path: AgentPath, change: (child: Child) => void) =>
    Effect.sync(() => {
      const key = keyOf(path)
      const child = children.get(key) ?? { path, steps: 0, calls: 0, tool: undefined }
      children.set(key, child)
      change(child)
      show()
    })
  const remove = (callId: string): Child | undefined => {
    let found: Child | undefined
    for (const [key, child] of children) {
      const index = child.path.findIndex((step) => step.callId === callId)
      if (index === -1) continue
      if (index === child.path.length - 1) found = child
      children.delete(key)
    }
    return found
  }
  const renderer = (path: AgentPath): RendererShape => ({
    sessionStarted: () => Effect.void,
    textDelta: () => Effect.void,
    reasoningDelta: () => Effect.void,
    assistantMessage: () =>
      update(path, (child) => {
        child.steps++
        child.tool = undefined
      }),
    toolStarted: (call) =>
      update(path, (child) => {
        child.tool = describeCall({ ...call, name: visible(call.name), arguments: visibleValue(call.arguments) }, toolWidth)
      }),
    approval: () => Effect.void,
    toolProgress: () => Effect.void,
    toolFinished: (result) =>
      update(path, (child) => {
        child.tool = undefined
        child.calls++
        // A grandchild's task call ended: its line goes with it.
        remove(result.callId)
      }),
    retrying: () => Effect.void,
    note: () => Effect.void,
    finished: () => Effect.void,
    failed: () => Effect.void,
    child
  })
  const child = (path: AgentPath): RendererShape => {
    Effect.runSync(update(path, () => {}))
    return renderer(path)
  }
  return {
    child,
    finished: (callId) => {
      const child = remove(callId)
      if (child === undefined) return []
      show()
      const last = child.path.at(-1)
      return [`  ⎿ ${last === undefined ? "" : agentPathLabel([last])} · ${plural(child.steps, "step")} · ${plural(child.calls, "tool call")}`]
    },
    clear: () => {
      children.clear()
      publish([])
    }
  }
}
