/**
 * The Renderer of an ACP session: a turn's events become `session/update` notifications. Text and
 * thinking stream as chunks; a tool call is announced (kind, title, locations, its arguments),
 * moves to in_progress once allowed, and ends completed or failed with its output, plus a diff of
 * the file for edit and write; todowrite's list becomes the plan. A subagent's tool calls are
 * shown under its path (its own text stays inside its task call's result).
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk"
import { agentPathLabel, type AgentPath } from "../agents/definition.ts"
import type { RendererShape } from "../engine/renderer.ts"
import type { ToolCall } from "../session/items.ts"
import { todoToolNames } from "../tools/todo-tools.ts"
import { callPath, changesFile, viewToolCall } from "./tool-calls.ts"

/** Files larger than this are not shown as a diff (the editor has them open anyway). */
const maxDiffBytes = 1024 * 1024

interface RunningCall {
  readonly call: ToolCall
  readonly toolCallId: string
  /** The file before the call, taken once the call is allowed; undefined: not shown. */
  readonly before: string | null | undefined
}

/**
 * The calls a session has running, by ACP tool call id: an agent can run several at once (a task
 * call runs beside its other calls), so the operator and the renderer name a call by its id.
 */
export class RunningCalls {
  private readonly calls = new Map<string, RunningCall>()

  started(call: ToolCall, toolCallId: string): void {
    this.calls.set(toolCallId, { call, toolCallId, before: undefined })
  }

  allowed(toolCallId: string, before: string | null | undefined): void {
    const running = this.calls.get(toolCallId)
    if (running !== undefined) this.calls.set(toolCallId, { ...running, before })
  }

  current(toolCallId: string): RunningCall | undefined {
    return this.calls.get(toolCallId)
  }

  finished(toolCallId: string): void {
    this.calls.delete(toolCallId)
  }

  /** The calls a cancelled turn left without a result, forgotten as they are returned. */
  drain(): ReadonlyArray<string> {
    const ids = [...this.calls.keys()]
    this.calls.clear()
    return ids
  }
}

export const agentKey = (path: AgentPath | undefined): string => (path === undefined || path.length === 0 ? "" : path.map((step) => step.callId).join("/"))

/** The ACP id of a call: a subagent's calls are prefixed with its agent path, so ids stay unique. */
export const toolCallIdOf = (agent: string, callId: string): string => (agent === "" ? callId : `${agent}/${callId}`)

export interface AcpRendererDeps {
  readonly workspace: string
  /** Sends one session/update; never fails (a closed connection drops it). */
  readonly send: (update: SessionUpdate) => Effect.Effect<void>
  readonly calls: RunningCalls
  /** A turn's stderr-only notes (retries, start-up notes): what an editor logs, not the conversation. */
  readonly log: (text: string) => void
  /** The editor's text of a file, where it offers reads: a diff then shows what its buffer holds. */
  readonly editorRead?: ((file: string) => Promise<string>) | undefined
}

/** null: the file does not exist; undefined: not shown (unreadable or too large). */
const diskSnapshot = (file: string | undefined): string | null | undefined => {
  if (file === undefined) return undefined
  try {
    const stat = fs.statSync(file)
    if (!stat.isFile() || stat.size > maxDiffBytes) return undefined
    return fs.readFileSync(file, "utf8")
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined
  }
}

const snapshot = (file: string | undefined, editorRead: AcpRendererDeps["editorRead"]): Effect.Effect<string | null | undefined> => {
  const onDisk = diskSnapshot(file)
  if (file === undefined || editorRead === undefined || typeof onDisk !== "string") return Effect.succeed(onDisk)
  return Effect.promise(() => editorRead(file).catch(() => onDisk))
}

const textContent = (text: string): ToolCallContent => ({ type: "content", content: { type: "text", text } })

const todoPlan = (args: unknown): SessionUpdate | undefined => {
  const todos = typeof args === "object" && args !== null ? (args as { todos?: unknown }).todos : undefined
  if (!Array.isArray(todos)) return undefined
  const entries = todos.flatMap((todo: unknown) => {
    if (typeof todo !== "object" || todo === null) return []
    const { content, status, priority } = todo as Record<string, unknown>
    if (typeof content !== "string") return []
    return [
      {
        content,
        status: status === "in_progress" || status === "completed" ? status : "pending",
        priority: priority === "high" || priority === "low" ? priority : "medium"
      } as const
    ]
  })
  return { sessionUpdate: "plan", entries }
}

export const makeAcpRenderer = (deps: AcpRendererDeps, path: AgentPath = []): RendererShape => {
  const agent = agentKey(path)
  const label = path.length === 0 ? "" : `${agentPathLabel(path)}: `
  const root = path.length === 0
  const ids = (callId: string) => toolCallIdOf(agent, callId)
  return {
    sessionStarted: () => Effect.void,
    textDelta: (text) => (root ? deps.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } }) : Effect.void),
    reasoningDelta: (text) => (root ? deps.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text } }) : Effect.void),
    assistantMessage: () => Effect.void,
    toolStarted: (call) =>
      Effect.gen(function* () {
        const view = viewToolCall(call.name, call.arguments, deps.workspace)
        deps.calls.started(call, ids(call.id))
        return yield* deps.send({
          sessionUpdate: "tool_call",
          toolCallId: ids(call.id),
          title: `${label}${view.title}`,
          kind: view.kind,
          status: "pending",
          locations: [...view.locations],
          rawInput: call.arguments
        })
      }),
    // The file is read (from the editor too) only once the call is allowed: a call the fence or
    // the operator refuses must not make the editor read its path.
    approval: (event) =>
      event.outcome === "allowed"
        ? Effect.gen(function* () {
            const running = deps.calls.current(ids(event.callId))
            if (running === undefined) return
            if (changesFile(running.call.name)) {
              deps.calls.allowed(running.toolCallId, yield* snapshot(callPath(running.call.name, running.call.arguments, deps.workspace), deps.editorRead))
            }
            yield* deps.send({ sessionUpdate: "tool_call_update", toolCallId: running.toolCallId, status: "in_progress" })
          })
        : Effect.void,
    toolProgress: (event) =>
      event.message === undefined
        ? Effect.void
        : Effect.suspend(() => {
            const running = deps.calls.current(ids(event.callId))
            return running === undefined ? Effect.void : deps.send({ sessionUpdate: "tool_call_update", toolCallId: running.toolCallId, content: [textContent(event.message ?? "")] })
          }),
    toolFinished: (result) =>
      Effect.gen(function* () {
        const running = deps.calls.current(ids(result.callId))
        deps.calls.finished(ids(result.callId))
        const call = running?.call
        const content: Array<ToolCallContent> = []
        const file = call === undefined ? undefined : callPath(call.name, call.arguments, deps.workspace)
        if (!result.isError && call !== undefined && changesFile(call.name) && file !== undefined && running?.before !== undefined) {
          const after = yield* snapshot(file, deps.editorRead)
          if (typeof after === "string") content.push({ type: "diff", path: file, oldText: running.before, newText: after })
        }
        content.push(textContent(result.text))
        const update = deps.send({
          sessionUpdate: "tool_call_update",
          toolCallId: ids(result.callId),
          status: result.isError ? "failed" : "completed",
          content,
          rawOutput: { output: result.text, isError: result.isError }
        })
        const plan = root && !result.isError && call?.name === todoToolNames.write ? todoPlan(call.arguments) : undefined
        yield* update
        if (plan !== undefined) yield* deps.send(plan)
      }),
    retrying: (info) => Effect.sync(() => deps.log(`retrying (${info.attempt}/${info.maxAttempts}) in ${Math.round(info.delayMs / 1000)} s: ${info.reason}`)),
    note: (text) => Effect.sync(() => deps.log(`${label}${text}`)),
    finished: () => Effect.void,
    failed: (message) => Effect.sync(() => deps.log(`${label}${message}`)),
    child: (childPath) => makeAcpRenderer(deps, childPath)
  }
}
