/**
 * session/load: a saved session's transcript as the session/update notifications that would have
 * shown it live: the operator's messages, the model's thinking and text, each tool call with its
 * result, and the todo list as the plan. Notes and compaction summaries are Crystal's own records.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk"
import type { SessionDocument } from "../session/document.ts"
import { viewToolCall } from "./tool-calls.ts"

export const replayUpdates = (doc: Pick<SessionDocument, "items" | "workspace" | "todos">): ReadonlyArray<SessionUpdate> => {
  const updates: Array<SessionUpdate> = []
  for (const item of doc.items) {
    switch (item._tag) {
      case "user":
        if (item.synthetic === undefined) updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: item.text } })
        break
      case "assistant": {
        const reasoning = (item.reasoning ?? []).map((part) => part.text).join("\n\n")
        if (reasoning !== "") updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: reasoning } })
        if (item.text !== "") updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: item.text } })
        for (const call of item.toolCalls ?? []) {
          const view = viewToolCall(call.name, call.arguments, doc.workspace)
          updates.push({ sessionUpdate: "tool_call", toolCallId: call.id, title: view.title, kind: view.kind, status: "pending", locations: [...view.locations], rawInput: call.arguments })
        }
        break
      }
      case "tool_result":
        updates.push({
          sessionUpdate: "tool_call_update",
          toolCallId: item.callId,
          status: item.isError ? "failed" : "completed",
          content: [{ type: "content", content: { type: "text", text: item.text } }]
        })
        break
      case "note":
      case "compaction":
        break
    }
  }
  const todos = doc.todos ?? []
  if (todos.length > 0) updates.push({ sessionUpdate: "plan", entries: todos.map((todo) => ({ content: todo.content, status: todo.status, priority: todo.priority })) })
  return updates
}
