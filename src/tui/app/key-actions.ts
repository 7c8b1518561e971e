/**
 * What a key means in the editor, given what the app shows: pure (key + state → event), so the
 * keys' rules (Ctrl+C cancels, clears, then leaves on a second press; Esc closes the menu, then
 * clears; Enter on a command that takes nothing runs it) are a table of cases
 * (test/unit/tui/app-keys.test.ts). Image pastes are image-input.ts's, before this.
 */
import { findCommand } from "../commands.ts"
import { acceptCompletion } from "../completion.ts"
import { editorKey, emptyEditor } from "../editor-state.ts"
import { historyNext, historyPrevious } from "../history.ts"
import type { Key } from "../keys.ts"
import { exitWindowMs, imagesOf, turnRunning, type AppEvent, type AppState } from "./state.ts"

const ctrlC = (state: AppState, now: number): AppEvent => {
  if (turnRunning(state)) return { _tag: "CancelAsked" }
  if (state.editor.text !== "") return { _tag: "Edited", editor: emptyEditor }
  return now - state.lastCtrlC <= exitWindowMs ? { _tag: "ExitAsked" } : { _tag: "ExitArmed", at: now }
}

/** Up, Down, Tab and Enter while the menu is open; undefined: the editor's own key. */
const menuKey = (state: AppState, key: Key, now: number): AppEvent | undefined => {
  const completion = state.completion
  if (completion === undefined || key.type !== "key") return undefined
  if (key.name === "up" || key.name === "down") return { _tag: "CompletionMoved", delta: key.name === "up" ? -1 : 1 }
  if (key.name !== "tab" && !(key.name === "enter" && !key.shift && !key.alt)) return undefined
  const chosen = completion.items[completion.selected]
  // Enter on a command runs it at once when it takes no arguments left to type.
  if (key.name === "enter" && completion.kind === "command" && chosen !== undefined) {
    const command = findCommand(chosen.value.slice(1), state.commands)
    if (command?.usage === undefined || state.editor.text === chosen.value) return { _tag: "Sent", text: chosen.value, images: [], at: now }
  }
  return { _tag: "CompletionAccepted", editor: acceptCompletion(state.editor, completion) }
}

/** The event `key` makes, at time `now`; undefined when it means nothing here. */
export const keyEvent = (state: AppState, key: Key, now: number): AppEvent | undefined => {
  if (key.type === "ctrl" && key.letter === "c") return ctrlC(state, now)
  if (key.type === "ctrl" && key.letter === "d" && state.editor.text === "") return { _tag: "ExitAsked" }
  if (key.type === "key" && key.name === "escape") return state.completion !== undefined ? { _tag: "CompletionDismissed" } : { _tag: "Edited", editor: emptyEditor }
  const fromMenu = menuKey(state, key, now)
  if (fromMenu !== undefined) return fromMenu
  const result = editorKey(state.editor, key)
  switch (result._tag) {
    case "Edited":
      return { _tag: "Edited", editor: result.state }
    case "Submit":
      return { _tag: "Sent", text: result.text, images: imagesOf(state), at: now }
    case "HistoryPrevious": {
      const previous = historyPrevious(state.history, state.editor.text)
      return previous === undefined ? undefined : { _tag: "HistoryWalked", ...previous }
    }
    case "HistoryNext": {
      const next = historyNext(state.history)
      return next === undefined ? undefined : { _tag: "HistoryWalked", ...next }
    }
    case "Unhandled":
      return undefined
  }
}
