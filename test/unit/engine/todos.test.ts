import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { reminderDue, reminderText } from "../../../src/engine/todo-reminder.ts"
import type { Todo } from "../../../src/session/document.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"
import { makeTodoTools } from "../../../src/tools/todo-tools.ts"
import type { ToolContext } from "../../../src/tools/tool.ts"

const context = {} as ToolContext

const memoryStore = (initial: ReadonlyArray<Todo> = []) => {
  let todos = initial
  return {
    store: { get: Effect.sync(() => todos), set: (next: ReadonlyArray<Todo>) => Effect.sync(() => void (todos = next)) },
    current: () => todos
  }
}

const run = <A>(effect: Effect.Effect<A, unknown>) => Effect.runPromise(Effect.either(effect))

describe("todowrite and todoread", () => {
  it("replaces the whole list and reports the previous one and the counts", async () => {
    const { store, current } = memoryStore([{ content: "old", status: "pending", priority: "low" }])
    const { todowrite } = makeTodoTools(store)
    const todos: Array<Todo> = [
      { content: "  write tests ", status: "in_progress", priority: "high" },
      { content: "ship", status: "pending", priority: "medium" }
    ]
    const result = await run(todowrite.run({ todos } as never, context))
    expect(result).toMatchObject({
      _tag: "Right",
      right: {
        text:
          "Todo list replaced: 2 items (1 pending, 1 in progress, 0 completed).\n1. [in_progress] (high) write tests\n2. [pending] (medium) ship" +
          "\n\nPrevious list (1):\n1. [pending] (low) old"
      }
    })
    expect(current().map((todo) => todo.content)).toEqual(["write tests", "ship"])
  })

  it("refuses an item without content and changes nothing", async () => {
    const { store, current } = memoryStore([{ content: "keep", status: "pending", priority: "low" }])
    const result = await run(makeTodoTools(store).todowrite.run({ todos: [{ content: "  ", status: "pending", priority: "low" }] } as never, context))
    expect(result).toMatchObject({ _tag: "Left", left: { message: "todowrite: item 1 has no content; every item needs a short description" } })
    expect(current()).toHaveLength(1)
  })

  it("reads the list", async () => {
    const { store } = memoryStore([{ content: "a", status: "completed", priority: "low" }])
    expect(await run(makeTodoTools(store).todoread.run({} as never, context))).toMatchObject({
      right: { text: "1 item (0 pending, 0 in progress, 1 completed).\n1. [completed] (low) a" }
    })
  })

  it("are reads for the approval policy, so plan mode can use them", async () => {
    const { todowrite } = makeTodoTools(memoryStore().store)
    expect(await Effect.runPromise(todowrite.classify({ todos: [] } as never, context))).toMatchObject({ authority: "read", risk: "low", paths: [] })
  })
})

const assistant = (n: number, toolCall?: string): TranscriptItem => ({
  _tag: "assistant",
  id: `a${n}`,
  text: "",
  model: "m/m",
  ...(toolCall === undefined ? {} : { toolCalls: [{ id: `c${n}`, name: toolCall, arguments: {} }] })
})
const user: TranscriptItem = { _tag: "user", id: "u", text: "go" }
const reminder: TranscriptItem = { _tag: "user", id: "r", text: "reminder", synthetic: "reminder" }
const assistants = (count: number, from = 0): Array<TranscriptItem> => Array.from({ length: count }, (_, i) => assistant(from + i))

describe("todo reminder cadence", () => {
  it("is due after exactly 10 assistant messages without todowrite or a reminder", () => {
    expect(reminderDue([user, ...assistants(9)], true)).toBe(false)
    expect(reminderDue([user, ...assistants(10)], true)).toBe(true)
  })

  it("is not due when todowrite is not offered", () => {
    expect(reminderDue([user, ...assistants(20)], false)).toBe(false)
  })

  it("counts from the last todowrite call", () => {
    const items = [user, ...assistants(12), assistant(100, "todowrite"), ...assistants(9, 200)]
    expect(reminderDue(items, true)).toBe(false)
    expect(reminderDue([...items, assistant(300)], true)).toBe(true)
  })

  it("counts from the last reminder", () => {
    const items = [user, ...assistants(10), reminder, ...assistants(9, 50)]
    expect(reminderDue(items, true)).toBe(false)
    expect(reminderDue([...items, assistant(99)], true)).toBe(true)
  })

  it("lists the current todos, or invites one when there are none", () => {
    expect(reminderText([{ content: "a", status: "in_progress", priority: "high" }])).toContain("1. [in_progress] (high) a")
    expect(reminderText([])).toMatch(/todo list is empty/)
  })
})
