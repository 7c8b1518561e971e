/** What a key means to the app (src/tui/app/key-actions.ts), given what it shows. */
import { describe, expect, it } from "vitest"
import { editorWith, emptyEditor, moveTo } from "../../../src/tui/editor-state.ts"
import type { Key } from "../../../src/tui/keys.ts"
import { keyEvent } from "../../../src/tui/app/key-actions.ts"
import type { AppEvent, AppState } from "../../../src/tui/app/state.ts"
import type { Completion } from "../../../src/tui/completion.ts"
import { appState, ctrl, image, key, text, withImage } from "./app-fixture.ts"

const now = 10_000_000
const menu = (values: ReadonlyArray<string>, kind: Completion["kind"] = "command", typed = 3): Completion => ({
  kind,
  items: values.map((value) => ({ value, description: "" })),
  selected: 0,
  from: 0,
  to: typed
})

const cases: ReadonlyArray<readonly [string, AppState, Key, AppEvent | undefined]> = [
  ["Ctrl+C during a turn cancels it, whatever the editor holds", appState({ turnSince: 1, editor: editorWith("draft") }), ctrl("c"), { _tag: "CancelAsked" }],
  ["Ctrl+C with text clears the editor", appState({ editor: editorWith("draft") }), ctrl("c"), { _tag: "Edited", editor: emptyEditor }],
  ["a first Ctrl+C on an empty prompt arms the exit", appState({ lastCtrlC: now - 2001 }), ctrl("c"), { _tag: "ExitArmed", at: now }],
  ["a second Ctrl+C within the window leaves", appState({ lastCtrlC: now - 2000 }), ctrl("c"), { _tag: "ExitAsked" }],
  ["Ctrl+D on an empty prompt leaves", appState(), ctrl("d"), { _tag: "ExitAsked" }],
  ["Ctrl+D with text deletes forward", appState({ editor: moveTo(editorWith("ab"), 0) }), ctrl("d"), { _tag: "Edited", editor: moveTo(editorWith("b"), 0) }],
  ["Esc closes the menu first", appState({ editor: editorWith("/he"), completion: menu(["/help"]) }), key("escape"), { _tag: "CompletionDismissed" }],
  ["Esc without a menu clears the editor", appState({ editor: editorWith("draft") }), key("escape"), { _tag: "Edited", editor: emptyEditor }],
  ["Up in the menu moves the choice", appState({ editor: editorWith("/") , completion: menu(["/help", "/mode"], "command", 1) }), key("up"), { _tag: "CompletionMoved", delta: -1 }],
  ["Down in the menu moves the choice", appState({ editor: editorWith("/"), completion: menu(["/help", "/mode"], "command", 1) }), key("down"), { _tag: "CompletionMoved", delta: 1 }],
  ["Tab takes the choice into the editor", appState({ editor: editorWith("/he"), completion: menu(["/help"]) }), key("tab"), { _tag: "CompletionAccepted", editor: editorWith("/help ") }],
  ["Tab takes a file into the editor", appState({ editor: editorWith("@ma"), completion: menu(["@src/main.ts"], "file") }), key("tab"), { _tag: "CompletionAccepted", editor: editorWith("@src/main.ts ") }],
  ["Enter on a command that takes nothing runs it", appState({ editor: editorWith("/he"), completion: menu(["/help"]) }), key("enter"), { _tag: "Sent", text: "/help", images: [], at: now }],
  ["Enter on a command that takes arguments completes it", appState({ editor: editorWith("/mod"), completion: menu(["/model"], "command", 4) }), key("enter"), { _tag: "CompletionAccepted", editor: editorWith("/model ") }],
  ["Enter on a command typed in full runs it", appState({ editor: editorWith("/model"), completion: menu(["/model"], "command", 6) }), key("enter"), { _tag: "Sent", text: "/model", images: [], at: now }],
  ["Enter on a file takes it", appState({ editor: editorWith("@ma"), completion: menu(["@src/main.ts"], "file") }), key("enter"), { _tag: "CompletionAccepted", editor: editorWith("@src/main.ts ") }],
  ["Shift+Enter in the menu adds a line", appState({ editor: editorWith("/he"), completion: menu(["/help"]) }), key("enter", { shift: true }), { _tag: "Edited", editor: editorWith("/he\n") }],
  [
    "Enter sends the text with the images of its markers",
    appState({ editor: withImage("see ", 1), images: new Map([[1, image("a")], [2, image("b", 2)]]) }),
    key("enter"),
    { _tag: "Sent", text: "see [Image #1]", images: [image("a")], at: now }
  ],
  ["Enter after a trailing backslash adds a line instead", appState({ editor: editorWith("one\\") }), key("enter"), { _tag: "Edited", editor: editorWith("one\n") }],
  ["typing edits", appState({ editor: editorWith("ab") }), text("c"), { _tag: "Edited", editor: editorWith("abc") }],
  ["Up on the first line walks the history back, keeping the draft", appState({ editor: editorWith("dra") }), key("up"), { _tag: "HistoryWalked", history: { entries: ["first", "second"], index: 1, draft: "dra" }, text: "second" }],
  ["Up at the oldest entry does nothing", appState({ history: { entries: ["first"], index: 0, draft: "" } }), key("up"), undefined],
  ["Down walks forward to the draft", appState({ history: { entries: ["first", "second"], index: 1, draft: "dra" } }), key("down"), { _tag: "HistoryWalked", history: { entries: ["first", "second"], index: 2, draft: "dra" }, text: "dra" }],
  ["Down past the newest does nothing", appState(), key("down"), undefined],
  ["a key the editor has no use for means nothing", appState(), key("pageup"), undefined]
]

describe("keys", () => {
  it.each(cases)("%s", (_name, state, pressed, expected) => {
    expect(keyEvent(state, pressed, now)).toEqual(expected)
  })
})
