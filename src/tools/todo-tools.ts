/**
 * todowrite and todoread (SPEC T2): the session's todo list, replaced whole by each write. They
 * touch no files, so both are reads for the approval policy and both exist in Plan and Work.
 */
import * as Effect from "effect/Effect"
import type { Classification } from "../approval/classification.ts"
import type { Todo } from "../session/document.ts"
import { formatTodos } from "../session/todos.ts"
import * as P from "./params.ts"
import { everyMode, defineTool, ToolError, type Tool } from "./tool.ts"
import { plural } from "../text/plural.ts"

export interface TodoStore {
  readonly get: Effect.Effect<ReadonlyArray<Todo>>
  readonly set: (todos: ReadonlyArray<Todo>) => Effect.Effect<void>
}

const statuses = ["pending", "in_progress", "completed"] as const
const priorities = ["high", "medium", "low"] as const

const noFiles = (summary: string): Effect.Effect<Classification> =>
  Effect.succeed({ risk: "low", authority: "read", scope: "workspace", summary, paths: [] })

/** The todo tools' names, each written once. */
export const todoToolNames = { write: "todowrite", read: "todoread" } as const

export const countByStatus = (todos: ReadonlyArray<Todo>): string =>
  statuses.map((status) => `${todos.filter((todo) => todo.status === status).length} ${status.replace("_", " ")}`).join(", ")

export const makeTodoTools = (store: TodoStore): { readonly todowrite: Tool; readonly todoread: Tool } => ({
  todowrite: defineTool({
    name: todoToolNames.write,
    modes: everyMode,
    description:
      "Replace the session's todo list with this one (send every item, not a change). Use it for multi-step work: " +
      "keep one item in_progress, mark items completed as soon as they are done.",
    parameters: P.object({
      todos: P.array(
        P.nested({
          content: P.string("What to do, in a few words."),
          status: P.literal(statuses),
          priority: P.literal(priorities)
        }),
        "The whole list, in order."
      )
    }),
    classify: () => noFiles("update the todo list"),
    run: ({ todos }) =>
      Effect.gen(function* () {
        const cleaned = todos.map((todo) => ({ ...todo, content: todo.content.trim() }))
        const empty = cleaned.findIndex((todo) => todo.content === "")
        if (empty >= 0) return yield* new ToolError({ message: `${todoToolNames.write}: item ${empty + 1} has no content; every item needs a short description` })
        const previous = yield* store.get
        yield* store.set(cleaned)
        return {
          text:
            `Todo list replaced: ${plural(cleaned.length, "item")} (${countByStatus(cleaned)}).\n${formatTodos(cleaned)}` +
            `\n\nPrevious list (${previous.length}):\n${formatTodos(previous)}`
        }
      })
  }),
  todoread: defineTool({
    name: todoToolNames.read,
    modes: everyMode,
    description: "Show the session's todo list.",
    parameters: P.object({}),
    classify: () => noFiles("read the todo list"),
    run: () => Effect.map(store.get, (todos) => ({ text: `${plural(todos.length, "item")} (${countByStatus(todos)}).\n${formatTodos(todos)}` }))
  })
})
