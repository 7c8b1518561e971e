/** The app's side of what the turn view and the dialogs draw through: its state and its live region. */
import * as Queue from "effect/Queue"
import type { DialogHost } from "../dialogs.ts"
import type { Terminal } from "../terminal.ts"
import type { TurnSurface } from "../turn-view.ts"
import type { AppInput } from "./input.ts"
import type { LiveRegion } from "./live.ts"
import type { Store } from "./store.ts"

/** The streamed answer's unfinished line and the activity redraw within a frame, not on every token. */
export const turnSurface = (store: Store, live: LiveRegion, terminal: Terminal): TurnSurface => ({
  commit: live.commit,
  partial: (text) => {
    store.update({ _tag: "Partial", text })
    live.renderSoon()
  },
  activity: (text) => {
    store.update({ _tag: "Activity", text })
    live.renderSoon()
  },
  agents: (lines) => {
    store.update({ _tag: "Agents", lines })
    live.renderSoon()
  },
  columns: terminal.columns
})

/** A dialog hides the live region and takes the keyboard; its Ctrl+C goes to the inbox as a cancel. */
export const dialogHost = (store: Store, live: LiveRegion, terminal: Terminal, inbox: Queue.Enqueue<AppInput>): DialogHost => ({
  takeOver: () => {
    store.update({ _tag: "DialogOpened" })
    live.clear()
    terminal.pauseInput()
  },
  giveBack: () => {
    store.update({ _tag: "DialogClosed" })
    terminal.resumeInput()
    live.render()
  },
  commit: live.commit,
  columns: terminal.columns,
  input: process.stdin,
  output: terminal.stream,
  interruptTurn: () => {
    Queue.unsafeOffer(inbox, { _tag: "CancelTurn" })
  }
})
