/** An app state to start the app's pure parts from, and the keys to press on it. */
import { editorWith, insertAtomic, type EditorState } from "../../../src/tui/editor-state.ts"
import { makeHistory } from "../../../src/tui/history.ts"
import type { Key, KeyName } from "../../../src/tui/keys.ts"
import { initialState, type AppState } from "../../../src/tui/app/state.ts"
import { emptyCommandList } from "../../../src/prompts/command-files.ts"

export const status = { mode: "work", approval: "default", model: "local/m", promptSet: "default", contextUsed: 0, contextWindow: 32768, sessionTokens: { input: 0, output: 0, usd: undefined }, runningTasks: 0 }

export const appState = (overrides: Partial<AppState> = {}): AppState => ({
  ...initialState({ workspace: "/ws", historyPath: "/home/history/ws.json", history: makeHistory(["first", "second"]), files: () => ["src/main.ts", "README.md"], commands: emptyCommandList }, status),
  ...overrides
})

/** The editor holding `text` with an image marker (span id `id`) after it. */
export const withImage = (text: string, id: number): EditorState => insertAtomic(editorWith(text), `[Image #${id}]`, id)

export const key = (name: KeyName, mods: Partial<{ ctrl: boolean; alt: boolean; shift: boolean }> = {}): Key => ({
  type: "key",
  name,
  ctrl: false,
  alt: false,
  shift: false,
  ...mods
})
export const ctrl = (letter: string): Key => ({ type: "ctrl", letter })
export const text = (typed: string): Key => ({ type: "text", text: typed })
/** An attached image as the engine numbers it. */
export const image = (sha256: string, number = 1) => ({ sha256, mime: "image/png", marker: `[Image #${number}]` })
