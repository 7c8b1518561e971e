/** The session's todo list as text: what todoread returns, compaction keeps and the reminder repeats. */
import type { Todo } from "./document.ts"

export const formatTodos = (todos: ReadonlyArray<Todo>): string =>
  todos.length === 0 ? "(no todos)" : todos.map((todo, i) => `${i + 1}. [${todo.status}] (${todo.priority}) ${todo.content}`).join("\n")
