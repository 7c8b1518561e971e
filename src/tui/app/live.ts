/**
 * The live region on the terminal: the frame of the app's state, redrawn now or within a 16 ms
 * frame (a streamed answer costs one redraw per frame, not one per token: scripts/bench/render.ts),
 * and finished lines written above it. Nothing is drawn while a dialog owns the screen, nor once
 * the app has ended.
 */
import type { Palette } from "../../terminal/colors.ts"
import { Screen } from "../screen.ts"
import type { Terminal } from "../terminal.ts"
import { frame } from "./frame.ts"
import type { AppState } from "./state.ts"

export interface LiveRegion {
  readonly render: () => void
  readonly renderSoon: () => void
  readonly commit: (lines: ReadonlyArray<string>) => void
  /** Erases the live region (a dialog draws below the output next). */
  readonly clear: () => void
  /** The app has ended: erased, and never drawn again. */
  readonly close: () => void
}

export const makeLiveRegion = (terminal: Terminal, palette: Palette, state: () => AppState, attaching: () => string | undefined): LiveRegion => {
  const screen = new Screen(terminal)
  let closed = false
  let scheduled = false
  const current = () => frame(state(), { palette, columns: terminal.columns(), rows: terminal.rows(), now: Date.now(), attaching: attaching() })
  const render = () => {
    if (!closed && !state().dialogOpen) screen.live(current())
  }
  return {
    render,
    renderSoon: () => {
      if (scheduled) return
      scheduled = true
      setTimeout(() => {
        scheduled = false
        render()
      }, 16)
    },
    commit: (lines) => {
      if (lines.length > 0) screen.commit(lines, closed || state().dialogOpen ? undefined : current())
    },
    clear: () => screen.clear(),
    close: () => {
      closed = true
      screen.clear()
    }
  }
}
