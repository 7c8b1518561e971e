/** The live region drawn from the app's state (src/tui/app/frame.ts), without colour. */
import { describe, expect, it } from "vitest"
import { plainPalette } from "../../../src/terminal/colors.ts"
import { editorWith, moveTo } from "../../../src/tui/editor-state.ts"
import { frame, type FrameContext } from "../../../src/tui/app/frame.ts"
import type { AppState } from "../../../src/tui/app/state.ts"
import { appState } from "./app-fixture.ts"

const now = 50_000
const context: FrameContext = { palette: plainPalette, columns: 80, rows: 24, now, attaching: undefined }
const statusRow = "work · approval default · local/m · prompts default · ctx 0/32k 0%"
const placeholder = "› Ask anything · / commands · @ files · Shift+Enter new line"

const cases: ReadonlyArray<readonly [string, AppState, Partial<FrameContext>, ReadonlyArray<string>, { row: number; column: number }]> = [
  ["idle: the placeholder and the status line", appState(), {}, [placeholder, statusRow], { row: 0, column: 2 }],
  ["the editor's text, the cursor after it", appState({ editor: editorWith("hello") }), {}, ["› hello", statusRow], { row: 0, column: 7 }],
  [
    "a turn: the spinner (by tick), working… and its seconds",
    appState({ turnSince: now - 3500, tick: 2 }),
    {},
    ["⠹ working… 3 s · Ctrl+C cancels", placeholder, statusRow],
    { row: 1, column: 2 }
  ],
  ["a turn's activity replaces working…", appState({ turnSince: now, activity: "running bash…" }), {}, ["⠋ running bash… 0 s · Ctrl+C cancels", placeholder, statusRow], { row: 1, column: 2 }],
  ["an activity with no turn (a hint from the renderer) shows as is", appState({ activity: "✻ thinking…" }), {}, ["✻ thinking…", placeholder, statusRow], { row: 1, column: 2 }],
  [
    "queued prompts on one line each, newlines as spaces, clipped",
    appState({ turnSince: now, queue: [{ text: "one\ntwo" }, { text: "x".repeat(80) }] }),
    {},
    ["⠋ working… 0 s · Ctrl+C cancels", "queued: one two", `queued: ${"x".repeat(70)}…`, placeholder, statusRow],
    { row: 3, column: 2 }
  ],
  [
    "the answer's unfinished line on top, only its last rows when long",
    appState({ partial: "y".repeat(79 * 10) }),
    { rows: 9 },
    ["y".repeat(79), "y".repeat(79), "y".repeat(79), placeholder, statusRow],
    { row: 3, column: 2 }
  ],
  [
    "the menu under the editor: the choice marked, command names padded",
    appState({
      editor: editorWith("/m"),
      completion: { kind: "command", items: [{ value: "/mode", description: "the mode" }, { value: "/model", description: "the model" }], selected: 1, from: 0, to: 2 }
    }),
    {},
    ["› /m", "  /mode             the mode", "› /model            the model", statusRow],
    { row: 0, column: 4 }
  ],
  ["an attach running, and how to cancel it", appState(), { attaching: "reading the clipboard…" }, [placeholder, "reading the clipboard… · Ctrl+C cancels", statusRow], { row: 0, column: 2 }],
  ["the exit hint while its window lasts", appState({ hint: { text: "Press Ctrl+C again to exit", until: now + 1 } }), {}, [placeholder, "Press Ctrl+C again to exit", statusRow], { row: 0, column: 2 }],
  ["no hint once its window has passed", appState({ hint: { text: "Press Ctrl+C again to exit", until: now } }), {}, [placeholder, statusRow], { row: 0, column: 2 }],
  [
    "input taller than the screen: a window around the cursor",
    appState({ editor: moveTo(editorWith(["l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7"].join("\n")), 18) }),
    { rows: 6 },
    ["  l4", "  l5", "  l6", "  l7", statusRow],
    { row: 2, column: 2 }
  ]
]

describe("frame", () => {
  it.each(cases)("%s", (_name, state, overrides, lines, cursor) => {
    const drawn = frame(state, { ...context, ...overrides })
    expect(drawn.lines).toEqual(lines)
    expect(drawn.cursor).toEqual(cursor)
  })

  it("the status line and the menu fit the width", () => {
    const narrow = frame(appState({ editor: editorWith("/"), completion: { kind: "command", items: [{ value: "/help", description: "d".repeat(100) }], selected: 0, from: 0, to: 1 } }), { ...context, columns: 30 })
    expect(narrow.lines.every((line) => line.length <= 29)).toBe(true)
  })
})
