/** The app's state transitions (src/tui/app/reduce.ts): what each event does to the record, and what it asks to happen. */
import { describe, expect, it } from "vitest"
import { findCommand } from "../../../src/tui/commands.ts"
import { editorWith, emptyEditor } from "../../../src/tui/editor-state.ts"
import { makeHistory } from "../../../src/tui/history.ts"
import { reduce } from "../../../src/tui/app/reduce.ts"
import type { AppEffect, AppEvent, AppState } from "../../../src/tui/app/state.ts"
import type { StateEvent } from "../../../src/tui/app/store.ts"
import { appState, image, withImage } from "./app-fixture.ts"
import { emptyCommandList } from "../../../src/prompts/command-files.ts"

const at = 1_000_000
const recorded = (text: string): AppEffect => ({ _tag: "RecordHistory", file: "/home/history/ws.json", workspace: "/ws", text })

/** A case: from a state, an event, then what the state holds (a subset) and the effects, exactly. */
interface Case {
  readonly name: string
  readonly state: AppState
  readonly event: AppEvent
  readonly expect: Partial<AppState>
  readonly effects: ReadonlyArray<AppEffect>
}

const cases: ReadonlyArray<Case> = [
  {
    name: "a typed / opens the command menu",
    state: appState(),
    event: { _tag: "Edited", editor: editorWith("/he") },
    expect: { completion: { kind: "command", items: [{ value: "/help", description: "commands and keys" }], selected: 0, from: 0, to: 3 } },
    effects: []
  },
  {
    name: "a menu closed on a text stays closed while the text is the same",
    state: appState({ completionDismissed: "/he" }),
    event: { _tag: "Edited", editor: editorWith("/he") },
    expect: { completion: undefined, completionDismissed: "/he" },
    effects: []
  },
  {
    name: "a menu closed on a text opens again once the text changes",
    state: appState({ completionDismissed: "/he" }),
    event: { _tag: "Edited", editor: editorWith("/hel") },
    expect: { completionDismissed: undefined, completion: { kind: "command", items: [{ value: "/help", description: "commands and keys" }], selected: 0, from: 0, to: 4 } },
    effects: []
  },
  {
    name: "@ offers the workspace's files",
    state: appState(),
    event: { _tag: "Edited", editor: editorWith("look at @ma") },
    expect: { completion: { kind: "file", items: [{ value: "@src/main.ts", description: "" }], selected: 0, from: 8, to: 11 } },
    effects: []
  },
  {
    name: "Esc closes the menu and remembers the text it closed on",
    state: appState({ editor: editorWith("/he"), completion: { kind: "command", items: [{ value: "/help", description: "" }], selected: 0, from: 0, to: 3 } }),
    event: { _tag: "CompletionDismissed" },
    expect: { completion: undefined, completionDismissed: "/he" },
    effects: []
  },
  {
    name: "a choice taken leaves the menu closed on the new text",
    state: appState({ editor: editorWith("/he") }),
    event: { _tag: "CompletionAccepted", editor: editorWith("/help ") },
    expect: { editor: editorWith("/help "), completion: undefined, completionDismissed: "/help " },
    effects: []
  },
  {
    name: "the history's entry fills the editor, the cursor at its end",
    state: appState({ editor: editorWith("draft") }),
    event: { _tag: "HistoryWalked", history: { entries: ["first", "second"], index: 1, draft: "draft" }, text: "second" },
    expect: { editor: editorWith("second"), history: { entries: ["first", "second"], index: 1, draft: "draft" } },
    effects: []
  },
  {
    name: "a prompt sent while nothing runs: recorded, echoed, and a turn with its images starts",
    state: appState({ editor: withImage("see ", 1), images: new Map([[1, image("a")]]) }),
    event: { _tag: "Sent", text: "see [Image #1]", images: [image("a")], at },
    expect: { editor: emptyEditor, images: new Map(), turnSince: at, activity: undefined, history: makeHistory(["first", "second", "see [Image #1]"]) },
    effects: [recorded("see [Image #1]"), { _tag: "Echo", text: "see [Image #1]" }, { _tag: "StartTurn", input: { text: "see [Image #1]", images: [image("a")] } }]
  },
  {
    name: "blank text sends nothing (the editor still empties)",
    state: appState({ editor: editorWith("   ") }),
    event: { _tag: "Sent", text: "   ", images: [], at },
    expect: { editor: emptyEditor, turnSince: undefined, history: makeHistory(["first", "second"]) },
    effects: []
  },
  {
    name: "a prompt sent during a turn waits in the queue (recorded in the history at once)",
    state: appState({ turnSince: 5, queue: [{ text: "one", images: [] }] }),
    event: { _tag: "Sent", text: "two", images: [], at },
    expect: { turnSince: 5, queue: [{ text: "one", images: [] }, { text: "two", images: [] }] },
    effects: [recorded("two")]
  },
  {
    name: "a prompt sent while a command runs waits too",
    state: appState({ commandRunning: true }),
    event: { _tag: "Sent", text: "two", images: [], at },
    expect: { commandRunning: true, turnSince: undefined, queue: [{ text: "two", images: [] }] },
    effects: [recorded("two")]
  },
  {
    name: "an unknown command is said, and nothing runs",
    state: appState(),
    event: { _tag: "Sent", text: "/nope now", images: [], at },
    expect: { turnSince: undefined, commandRunning: false },
    effects: [recorded("/nope now"), { _tag: "Echo", text: "/nope now" }, { _tag: "UnknownCommand", name: "nope" }]
  },
  {
    name: "/compact runs as a turn, with its activity line",
    state: appState(),
    event: { _tag: "Sent", text: "/compact keep the plan", images: [], at },
    expect: { turnSince: at, activity: "compacting…", commandRunning: false },
    effects: [recorded("/compact keep the plan"), { _tag: "Echo", text: "/compact keep the plan" }, { _tag: "StartCommandTurn", command: findCommand("compact")!, args: "keep the plan" }]
  },
  {
    name: "/clear runs as a command: what is sent meanwhile waits",
    state: appState(),
    event: { _tag: "Sent", text: "/clear", images: [], at },
    expect: { turnSince: undefined, commandRunning: true },
    effects: [recorded("/clear"), { _tag: "Echo", text: "/clear" }, { _tag: "StartCommand", command: findCommand("clear")!, name: "clear", args: "" }]
  },
  {
    name: "a lone / is a prompt, not a command",
    state: appState(),
    event: { _tag: "Sent", text: "/", images: [], at },
    expect: { turnSince: at },
    effects: [recorded("/"), { _tag: "Echo", text: "/" }, { _tag: "StartTurn", input: { text: "/", images: [] } }]
  },
  {
    name: "a turn's end clears the live lines, says so, and reads the status again",
    state: appState({ turnSince: 5, activity: "running bash…", partial: "half" }),
    event: { _tag: "TurnEnded", at },
    expect: { turnSince: undefined, activity: undefined, partial: "" },
    effects: [{ _tag: "Commit", lines: [""] }, { _tag: "RefreshStatus" }]
  },
  {
    name: "a turn's end starts the first queued prompt (not recorded again); the rest wait",
    state: appState({ turnSince: 5, queue: [{ text: "one", images: [image("a")] }, { text: "two", images: [] }] }),
    event: { _tag: "TurnEnded", at },
    expect: { turnSince: at, queue: [{ text: "two", images: [] }] },
    effects: [{ _tag: "Commit", lines: [""] }, { _tag: "RefreshStatus" }, { _tag: "Echo", text: "one" }, { _tag: "StartTurn", input: { text: "one", images: [image("a")] } }]
  },
  {
    name: "leaving: a turn's end starts nothing queued",
    state: appState({ turnSince: 5, exiting: true, queue: [{ text: "one", images: [] }] }),
    event: { _tag: "TurnEnded", at },
    expect: { turnSince: undefined, queue: [] },
    effects: [{ _tag: "Commit", lines: [""] }, { _tag: "RefreshStatus" }]
  },
  {
    name: "a command's end reads the status again and runs a queued command",
    state: appState({ commandRunning: true, queue: [{ text: "/clear", images: [] }] }),
    event: { _tag: "CommandEnded", at },
    expect: { commandRunning: true, queue: [] },
    effects: [{ _tag: "RefreshStatus" }, { _tag: "Echo", text: "/clear" }, { _tag: "StartCommand", command: findCommand("clear")!, name: "clear", args: "" }]
  },
  {
    name: "a command that broke is said, and the app leaves with 1",
    state: appState({ commandRunning: true }),
    event: { _tag: "CommandBroke", name: "resume", reason: "boom" },
    expect: { commandRunning: false, exiting: true },
    effects: [{ _tag: "CommandBroke", name: "resume", reason: "boom" }, { _tag: "Finish", code: 1 }]
  },
  {
    name: "a command that broke while leaving is said; the exit code stays",
    state: appState({ commandRunning: true, exiting: true }),
    event: { _tag: "CommandBroke", name: "resume", reason: "boom" },
    expect: { commandRunning: false, exiting: true },
    effects: [{ _tag: "CommandBroke", name: "resume", reason: "boom" }]
  },
  {
    name: "the input fiber died: said, and the app leaves with 1",
    state: appState({ turnSince: 5 }),
    event: { _tag: "InputBroke", reason: "boom" },
    expect: { turnSince: 5, exiting: true },
    effects: [{ _tag: "InputBroke", reason: "boom" }, { _tag: "Finish", code: 1 }]
  },
  {
    name: "the input fiber died while leaving: said; the exit code stays",
    state: appState({ exiting: true }),
    event: { _tag: "InputBroke", reason: "boom" },
    expect: { exiting: true },
    effects: [{ _tag: "InputBroke", reason: "boom" }]
  },
  { name: "Ctrl+C during a turn cancels it", state: appState({ turnSince: 5 }), event: { _tag: "CancelAsked" }, expect: { turnSince: 5 }, effects: [{ _tag: "CancelTurn" }] },
  { name: "leaving", state: appState(), event: { _tag: "ExitAsked" }, expect: { exiting: true }, effects: [{ _tag: "Exit" }] },
  { name: "leaving twice leaves once", state: appState({ exiting: true }), event: { _tag: "ExitAsked" }, expect: { exiting: true }, effects: [] },
  {
    name: "a first Ctrl+C on an empty prompt shows a hint for the window, and a redraw after it",
    state: appState(),
    event: { _tag: "ExitArmed", at },
    expect: { lastCtrlC: at, hint: { text: "Press Ctrl+C again to exit", until: at + 2000 } },
    effects: [{ _tag: "RenderLater", ms: 2010 }]
  },
  {
    name: "an attached image becomes a marker span at the cursor, numbered by the app",
    state: appState({ editor: editorWith("see "), nextImageId: 3 }),
    event: { _tag: "ImageAttached", image: image("b", 3) },
    expect: { editor: withImage("see ", 3), images: new Map([[3, image("b", 3)]]), nextImageId: 4 },
    effects: []
  },
  {
    name: "an image whose marker is deleted is forgotten",
    state: appState({ editor: withImage("see ", 1), images: new Map([[1, image("a")]]) }),
    event: { _tag: "Edited", editor: editorWith("see ") },
    expect: { images: new Map() },
    effects: []
  },
  { name: "the streamed answer's unfinished line", state: appState(), event: { _tag: "Partial", text: "Hel" }, expect: { partial: "Hel" }, effects: [] },
  { name: "a dialog opens", state: appState(), event: { _tag: "DialogOpened" }, expect: { dialogOpen: true }, effects: [] },
  { name: "a tick turns the spinner", state: appState({ tick: 9 }), event: { _tag: "Ticked" }, expect: { tick: 10 }, effects: [] },
  {
    name: "a new count of background tasks shows in the status line",
    state: appState(),
    event: { _tag: "TasksCounted", running: 2 },
    expect: { status: { ...appState().status, runningTasks: 2 } },
    effects: []
  },
  {
    name: "another workspace brings its history and files",
    state: appState(),
    event: { _tag: "WorkspaceChanged", workspace: "/other", historyPath: "/home/history/other.json", history: makeHistory(["there"]), files: () => [], commands: emptyCommandList },
    expect: { workspace: "/other", historyPath: "/home/history/other.json", history: makeHistory(["there"]) },
    effects: []
  }
]

describe("reduce", () => {
  it.each(cases.map((entry) => [entry.name, entry] as const))("%s", (_name, entry) => {
    const step = reduce(entry.state, entry.event)
    expect(step.effects).toEqual(entry.effects)
    expect(step.state).toMatchObject(entry.expect)
  })

  it("a choice still offered stays chosen as the text grows", () => {
    const open = reduce(appState(), { _tag: "Edited", editor: editorWith("/") }).state
    const chosen = reduce(open, { _tag: "CompletionMoved", delta: 1 }).state
    const second = chosen.completion?.items[1]?.value
    expect(second).toBeDefined()
    const typed = reduce(chosen, { _tag: "Edited", editor: editorWith(second?.slice(0, 3) ?? "") }).state
    expect(typed.completion?.items[typed.completion.selected]?.value).toBe(second)
  })

  it("the menu's selection wraps both ways", () => {
    const open = reduce(appState(), { _tag: "Edited", editor: editorWith("/") }).state
    const count = open.completion?.items.length ?? 0
    expect(reduce(open, { _tag: "CompletionMoved", delta: -1 }).state.completion?.selected).toBe(count - 1)
    expect(reduce(open, { _tag: "CompletionMoved", delta: 1 }).state.completion?.selected).toBe(1)
  })

  it("an event that changes nothing returns the same record (nothing to redraw)", () => {
    const state = appState()
    expect(reduce(state, { _tag: "TasksCounted", running: 0 }).state).toBe(state)
    expect(reduce(state, { _tag: "WorkspaceChanged", workspace: "/ws", historyPath: "/x", history: makeHistory([]), files: () => [], commands: emptyCommandList }).state).toBe(state)
  })

  it("the events plain callbacks apply (store.update) never ask for an effect, in any state", () => {
    const events: ReadonlyArray<StateEvent> = [
      { _tag: "Partial", text: "x" },
      { _tag: "Activity", text: undefined },
      { _tag: "DialogOpened" },
      { _tag: "DialogClosed" },
      { _tag: "Ticked" },
      { _tag: "StatusRead", status: appState().status },
      { _tag: "TasksCounted", running: 3 },
      { _tag: "WorkspaceChanged", workspace: "/other", historyPath: "/x", history: makeHistory([]), files: () => [], commands: emptyCommandList }
    ]
    const states = [appState(), appState({ turnSince: 1, queue: [{ text: "q" }] }), appState({ commandRunning: true, exiting: true })]
    for (const state of states) for (const event of events) expect(reduce(state, event).effects).toEqual([])
  })

  it("the history walked back is left for the newest entry once a prompt is sent", () => {
    const walked = appState({ history: { entries: ["first", "second"], index: 0, draft: "d" } })
    expect(reduce(walked, { _tag: "Sent", text: "third", images: [], at }).state.history).toEqual(makeHistory(["first", "second", "third"]))
  })
})
