/**
 * The app state's one cell, read and changed synchronously: the turn's renderer, a dialog taking
 * the screen and the timers change it from plain callbacks (a redraw, or clack's drawing, must not
 * wait for a fiber). Every change is `reduce`'s.
 */
import { reduce } from "./reduce.ts"
import type { AppEffect, AppEvent, AppState } from "./state.ts"

/** The events that only change the record (`reduce` asks nothing for them): plain callbacks may apply them. */
export type StateEvent = Extract<
  AppEvent,
  { readonly _tag: "Partial" | "Activity" | "Agents" | "DialogOpened" | "DialogClosed" | "Ticked" | "StatusRead" | "TasksCounted" | "WorkspaceChanged" }
>

export interface Store {
  readonly get: () => AppState
  /** Applies `event`; returns what must happen outside the state (app/perform.ts's `handle` runs it). */
  readonly dispatch: (event: AppEvent) => ReadonlyArray<AppEffect>
  /** Applies an event that asks for nothing. */
  readonly update: (event: StateEvent) => void
}

export const makeStore = (initial: AppState): Store => {
  let state = initial
  return {
    get: () => state,
    dispatch: (event) => {
      const step = reduce(state, event)
      state = step.state
      return step.effects
    },
    update: (event) => {
      state = reduce(state, event).state
    }
  }
}
