/**
 * `crystal run --format json`: one JSON object per line on stdout, nothing else. The shapes are a
 * public interface (docs/json-events.md, schema/json-events.schema.json): add fields, never rename
 * or remove them.
 */
import * as Effect from "effect/Effect"
import type { AgentPath } from "../../agents/definition.ts"
import type { RendererShape } from "../../engine/renderer.ts"
import type { Usage } from "../../session/items.ts"
import { writeJsonEvent, type JsonEvent } from "./json-event.ts"

/** A subagent's path as every one of its events carries it (docs/agents.md). */
export const agentJson = (path: AgentPath) => path.map((step) => ({ call_id: step.callId, index: step.index, name: step.name }))

export const usageJson = (usage: Usage) => ({
  input_tokens: usage.inputTokens,
  output_tokens: usage.outputTokens,
  ...(usage.cachedInputTokens !== undefined ? { cached_input_tokens: usage.cachedInputTokens } : {}),
  ...(usage.cacheWriteTokens !== undefined ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
  ...(usage.reasoningTokens !== undefined ? { reasoning_tokens: usage.reasoningTokens } : {})
})

/**
 * The renderer, its events handed to `write` (tests collect them; the product writes them to
 * stdout); with `agent`, a subagent's, each event marked with its path.
 */
export const makeJsonRenderer = (write: (event: JsonEvent) => void, agent?: AgentPath): RendererShape => {
  const marked = agent === undefined ? undefined : agentJson(agent)
  const emit = (event: JsonEvent) => Effect.sync(() => write(marked === undefined ? event : { ...event, agent: marked }))
  return {
    sessionStarted: (info) =>
      emit({ type: "session", id: info.id, model: info.model, workspace: info.workspace, resumed: info.resumed }),
    textDelta: () => Effect.void,
    reasoningDelta: () => Effect.void,
    assistantMessage: (message) =>
      Effect.gen(function* () {
        const reasoning = (message.reasoning ?? []).map((part) => part.text).join("\n\n")
        if (reasoning !== "") yield* emit({ type: "reasoning", text: reasoning })
        if (message.text !== "") yield* emit({ type: "text", text: message.text })
      }),
    toolStarted: (call) => emit({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments }),
    approval: (event) =>
      emit({
        type: "approval",
        id: event.callId,
        name: event.toolName,
        outcome: event.outcome,
        by: event.by,
        mode: event.approvalMode,
        risk: event.classification.risk,
        authority: event.classification.authority,
        scope: event.classification.scope,
        summary: event.classification.summary
      }),
    // At most four a second per call (src/engine/executor.ts); fields the tool did not report are left out.
    toolProgress: (event) =>
      emit({
        type: "tool_progress",
        id: event.callId,
        name: event.toolName,
        ...(event.progress !== undefined ? { progress: event.progress } : {}),
        ...(event.total !== undefined ? { total: event.total } : {}),
        ...(event.message !== undefined ? { message: event.message } : {})
      }),
    toolFinished: (result, durationMs) =>
      emit({ type: "tool_result", id: result.callId, name: result.name, ok: !result.isError, output: result.text, duration_ms: durationMs }),
    retrying: (info) =>
      emit({ type: "retry", attempt: info.attempt, max_attempts: info.maxAttempts, delay_ms: info.delayMs, reason: info.reason }),
    note: (text) => emit({ type: "note", text }),
    // A cost is there only when every model involved has a price: tokens alone otherwise, never a guess.
    finished: (summary) =>
      emit({
        type: "done",
        session: summary.sessionId,
        usage: usageJson(summary.usage),
        ...(summary.usd === undefined ? {} : { cost_usd: summary.usd }),
        session_usage: { ...usageJson(summary.session.usage), ...(summary.session.usd === undefined ? {} : { cost_usd: summary.session.usd }) },
        ...("output" in summary ? { output: summary.output } : {})
      }),
    failed: (message) => emit({ type: "error", message }),
    // A turn that took a checkpoint (docs/checkpoints.md): what it changed, for `crystal rewind --to`.
    filesChanged: (event) =>
      emit({
        type: "files_changed",
        turn: event.turn,
        files: event.files.map((file) => ({ path: file.path, kind: file.kind, added: file.added, removed: file.removed, binary: file.binary }))
      }),
    child: (path) => makeJsonRenderer(write, path)
  }
}

export const jsonRenderer: RendererShape = makeJsonRenderer(writeJsonEvent)
