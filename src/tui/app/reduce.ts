/** The app's one state transition: pure, every case of it in test/unit/tui/app-state.test.ts. */
import type { UserInput } from "../../engine/turn.ts"
import { commandEntries, findCommand, parseCommandLine } from "../commands.ts"
import { findCompletion, moveSelection } from "../completion.ts"
import { editorWith, emptyEditor, insertAtomic, type EditorState } from "../editor-state.ts"
import { historyRecord } from "../history.ts"
import { exitWindowMs, type AppEffect, type AppEvent, type AppState, type Step } from "./state.ts"

const only = (state: AppState): Step => ({ state, effects: [] })

/** The menu for the new text; a choice that is still offered stays chosen. */
const completionFor = (state: AppState, editor: EditorState): Pick<AppState, "completion" | "completionDismissed"> => {
  if (state.completionDismissed !== undefined && state.completionDismissed === editor.text) return { completion: undefined, completionDismissed: state.completionDismissed }
  const previous = state.completion
  const found = findCompletion(editor, () => commandEntries(state.commands), state.files)
  if (found !== undefined && previous !== undefined && previous.kind === found.kind) {
    const keep = found.items.findIndex((item) => item.value === previous.items[previous.selected]?.value)
    if (keep >= 0) return { completion: { ...found, selected: keep }, completionDismissed: undefined }
  }
  return { completion: found, completionDismissed: undefined }
}

/** A new editor: the images of spans it no longer holds are forgotten, and the menu follows the text. */
const withEditor = (state: AppState, editor: EditorState): AppState => {
  const kept = [...state.images].filter(([id]) => editor.spans.some((span) => span.id === id))
  return { ...state, editor, images: kept.length === state.images.size ? state.images : new Map(kept), ...completionFor(state, editor) }
}

/** A prompt or command from the editor (or the queue): it runs now, or waits while something runs. */
const submitted = (state: AppState, input: UserInput, fromQueue: boolean, at: number): Step => {
  const { text } = input
  if (text.trim() === "") return only(state)
  const recorded = fromQueue ? state : { ...state, history: historyRecord(state.history, text) }
  const effects: Array<AppEffect> = fromQueue ? [] : [{ _tag: "RecordHistory", file: state.historyPath, workspace: state.workspace, text }]
  if (recorded.turnSince !== undefined || recorded.commandRunning) return { state: { ...recorded, queue: [...recorded.queue, input] }, effects }
  effects.push({ _tag: "Echo", text })
  const parsed = text.startsWith("/") ? parseCommandLine(text) : undefined
  if (parsed !== undefined) {
    const command = findCommand(parsed.name, state.commands)
    if (command === undefined) return { state: recorded, effects: [...effects, { _tag: "UnknownCommand", name: parsed.name }] }
    if (command.asTurn !== undefined) {
      return { state: { ...recorded, turnSince: at, activity: command.asTurn }, effects: [...effects, { _tag: "StartCommandTurn", command, args: parsed.args }] }
    }
    return { state: { ...recorded, commandRunning: true }, effects: [...effects, { _tag: "StartCommand", command, name: parsed.name, args: parsed.args }] }
  }
  return { state: { ...recorded, turnSince: at, activity: undefined }, effects: [...effects, { _tag: "StartTurn", input }] }
}

/** Once nothing runs: the next queued prompt or command, unless the app is leaving. */
const nextQueued = (state: AppState, effects: ReadonlyArray<AppEffect>, at: number): Step => {
  const [next, ...rest] = state.queue
  if (next === undefined) return { state, effects }
  const dequeued = { ...state, queue: rest }
  if (state.exiting) return { state: dequeued, effects }
  const step = submitted(dequeued, next, true, at)
  return { state: step.state, effects: [...effects, ...step.effects] }
}

/** Something the app cannot go on without died: said, and the app leaves with 1 (unless it is leaving already). */
const broke = (state: AppState, told: AppEffect): Step =>
  state.exiting ? { state, effects: [told] } : { state: { ...state, exiting: true }, effects: [told, { _tag: "Finish", code: 1 }] }

export const reduce = (state: AppState, event: AppEvent): Step => {
  switch (event._tag) {
    case "Edited":
      return only(withEditor(state, event.editor))
    case "CompletionMoved":
      return state.completion === undefined ? only(state) : only({ ...state, completion: moveSelection(state.completion, event.delta) })
    case "CompletionDismissed":
      return only({ ...state, completion: undefined, completionDismissed: state.editor.text })
    case "CompletionAccepted":
      return only(withEditor({ ...state, completionDismissed: event.editor.text }, event.editor))
    case "HistoryWalked":
      return only(withEditor({ ...state, history: event.history }, editorWith(event.text)))
    case "Sent":
      return submitted(withEditor(state, emptyEditor), { text: event.text, images: event.images }, false, event.at)
    case "CancelAsked":
      return { state, effects: [{ _tag: "CancelTurn" }] }
    case "ExitAsked":
      return state.exiting ? only(state) : { state: { ...state, exiting: true }, effects: [{ _tag: "Exit" }] }
    case "ExitArmed":
      return {
        state: { ...state, lastCtrlC: event.at, hint: { text: "Press Ctrl+C again to exit", until: event.at + exitWindowMs } },
        effects: [{ _tag: "RenderLater", ms: exitWindowMs + 10 }]
      }
    case "ImageAttached": {
      const id = state.nextImageId
      const attached = { ...state, images: new Map([...state.images, [id, event.image]]), nextImageId: id + 1 }
      return only(withEditor(attached, insertAtomic(state.editor, event.image.marker ?? "[Image]", id)))
    }
    case "TurnEnded":
      return nextQueued({ ...state, turnSince: undefined, activity: undefined, agents: [], partial: "" }, [{ _tag: "Commit", lines: [""] }, { _tag: "RefreshStatus" }], event.at)
    case "CommandEnded":
      // Whatever the command changed (mode, model, prompts…) shows in the status line.
      return nextQueued({ ...state, commandRunning: false }, [{ _tag: "RefreshStatus" }], event.at)
    case "CommandBroke":
      return broke({ ...state, commandRunning: false }, { _tag: "CommandBroke", name: event.name, reason: event.reason })
    case "InputBroke":
      return broke(state, { _tag: "InputBroke", reason: event.reason })
    case "Partial":
      return only({ ...state, partial: event.text })
    case "Activity":
      return only({ ...state, activity: event.text })
    case "Agents":
      return only({ ...state, agents: event.lines })
    case "DialogOpened":
      return only({ ...state, dialogOpen: true })
    case "DialogClosed":
      return only({ ...state, dialogOpen: false })
    case "Ticked":
      return only({ ...state, tick: state.tick + 1 })
    case "StatusRead":
      return only({ ...state, status: event.status })
    case "TasksCounted":
      return event.running === state.status.runningTasks ? only(state) : only({ ...state, status: { ...state.status, runningTasks: event.running } })
    case "WorkspaceChanged": {
      const { _tag, ...inputs } = event
      return inputs.workspace === state.workspace ? only(state) : only({ ...state, ...inputs })
    }
  }
}
