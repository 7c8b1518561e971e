/**
 * The todo reminder (SPEC T2, as the peer that does it well): when todowrite is offered and
 * neither a todowrite call nor a reminder appeared in the last 10 assistant messages, one short
 * synthetic note with the current list goes into the conversation before the next request.
 */
import type { Todo } from "../session/document.ts"
import type { TranscriptItem } from "../session/items.ts"
import { formatTodos } from "../session/todos.ts"
import { todoToolNames } from "../tools/todo-tools.ts"

export const reminderCadence = 10

export const reminderDue = (items: ReadonlyArray<TranscriptItem>, todowriteOffered: boolean): boolean => {
  if (!todowriteOffered) return false
  let assistants = 0
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]
    if (item === undefined) continue
    if (item._tag === "user" && item.synthetic === "reminder") return false
    if (item._tag === "assistant") {
      if ((item.toolCalls ?? []).some((call) => call.name === todoToolNames.write)) return false
      assistants++
      if (assistants === reminderCadence) return true
    }
  }
  return false
}

export const reminderText = (todos: ReadonlyArray<Todo>): string =>
  todos.length === 0
    ? "[Reminder from Crystal, not from the operator] The todo list is empty. For work with several steps, keep one with todowrite; ignore this if the task is simple."
    : `[Reminder from Crystal, not from the operator] Current todo list:\n${formatTodos(todos)}\nKeep it current with todowrite: mark finished items completed and keep one in_progress.`
