/**
 * What the interactive app knows, as one record, and every change to it as an event: `reduce` is
 * pure, so what a key, the end of a turn or a finished command does to the app is a table of cases
 * (test/unit/tui/app-state.test.ts). What must happen outside the record (a turn started, a line
 * written, the history file appended to) comes back as effects, data that `perform.ts` carries out.
 */
import type { PreparedSession } from "../../../layers/prepare.ts"
import type { UserInput } from "../../engine/turn.ts"
import type { FileCommandList } from "../../prompts/command-files.ts"
import type { ImageRef } from "../../session/items.ts"
import type { SlashCommand } from "../commands.ts"
import type { Completion } from "../completion.ts"
import type { EditorState } from "../editor-state.ts"
import type { History } from "../history.ts"
import type { StatusInfo } from "../status-line.ts"

/** How long after a first Ctrl+C on an empty prompt a second one leaves. */
export const exitWindowMs = 2000

export interface AppState {
  /** Changes with /cd and /space, and with it the prompt history and the @file list. */
  readonly workspace: string
  /** The workspace's files for @ completion; the wiring lists them on first use. */
  readonly files: () => ReadonlyArray<string>
  /** The slash commands from files (the workspace's and the home's), read with the workspace. */
  readonly commands: FileCommandList
  readonly historyPath: string
  readonly history: History
  readonly editor: EditorState
  /** The images the editor's `[Image #N]` spans stand for, by span id. */
  readonly images: ReadonlyMap<number, ImageRef>
  readonly nextImageId: number
  readonly completion: Completion | undefined
  /** The text the menu was closed on (Esc, or a choice taken): no menu again until the text changes. */
  readonly completionDismissed: string | undefined
  /** The unfinished last line of the answer ("" = none). */
  readonly partial: string
  /** What the turn is doing now (undefined = nothing to say). */
  readonly activity: string | undefined
  /** One live line per running subagent, indented by depth (issue 26). */
  readonly agents: ReadonlyArray<string>
  readonly hint: { readonly text: string; readonly until: number } | undefined
  /** A dialog owns the keyboard and the screen below the output. */
  readonly dialogOpen: boolean
  /** When the running turn (or command run as one, /compact, /side) started; undefined when none runs. */
  readonly turnSince: number | undefined
  /** A command that is not a turn (a switch of session, a picker) runs: what is sent waits, as during a turn. */
  readonly commandRunning: boolean
  /** Prompts and commands sent while something ran, in order. */
  readonly queue: ReadonlyArray<UserInput>
  readonly lastCtrlC: number
  /** Counts the 100 ms ticks, for the spinner. */
  readonly tick: number
  readonly status: StatusInfo
  readonly exiting: boolean
}

/** A new workspace's inputs: its prompt history and its files. */
export interface WorkspaceInputs {
  readonly workspace: string
  readonly historyPath: string
  readonly history: History
  readonly files: () => ReadonlyArray<string>
  /** The slash commands from files, home and workspace, read when the app starts or changes workspace. */
  readonly commands: FileCommandList
}

export type AppEvent =
  /** The editor changed: typed, cleared (Esc, Ctrl+C), or filled from the history. */
  | { readonly _tag: "Edited"; readonly editor: EditorState }
  | { readonly _tag: "CompletionMoved"; readonly delta: -1 | 1 }
  | { readonly _tag: "CompletionDismissed" }
  /** Tab (or Enter) took the menu's choice into the editor. */
  | { readonly _tag: "CompletionAccepted"; readonly editor: EditorState }
  | { readonly _tag: "HistoryWalked"; readonly history: History; readonly text: string }
  /** Enter: the editor's text goes (with the images of its markers), the editor empties. */
  | { readonly _tag: "Sent"; readonly text: string; readonly images: ReadonlyArray<ImageRef>; readonly at: number }
  | { readonly _tag: "CancelAsked" }
  | { readonly _tag: "ExitAsked" }
  /** A first Ctrl+C on an empty prompt: a second within the window leaves. */
  | { readonly _tag: "ExitArmed"; readonly at: number }
  | { readonly _tag: "ImageAttached"; readonly image: ImageRef }
  | { readonly _tag: "TurnEnded"; readonly at: number }
  | { readonly _tag: "CommandEnded"; readonly at: number }
  /** A command died of a defect: the session is not worth trusting, the app leaves. */
  | { readonly _tag: "CommandBroke"; readonly name: string; readonly reason: string }
  /** The input fiber died: no key would be handled again, the app leaves. */
  | { readonly _tag: "InputBroke"; readonly reason: string }
  | { readonly _tag: "Partial"; readonly text: string }
  | { readonly _tag: "Activity"; readonly text: string | undefined }
  /** The running subagents' live lines (issue 26), under the activity line. */
  | { readonly _tag: "Agents"; readonly lines: ReadonlyArray<string> }
  | { readonly _tag: "DialogOpened" }
  | { readonly _tag: "DialogClosed" }
  | { readonly _tag: "Ticked" }
  | { readonly _tag: "StatusRead"; readonly status: StatusInfo }
  | { readonly _tag: "TasksCounted"; readonly running: number }
  | ({ readonly _tag: "WorkspaceChanged" } & WorkspaceInputs)

export type AppEffect =
  /** The sent text, above the live region, as the operator typed it. */
  | { readonly _tag: "Echo"; readonly text: string }
  | { readonly _tag: "Commit"; readonly lines: ReadonlyArray<string> }
  | { readonly _tag: "UnknownCommand"; readonly name: string }
  | { readonly _tag: "CommandBroke"; readonly name: string; readonly reason: string }
  | { readonly _tag: "InputBroke"; readonly reason: string }
  | { readonly _tag: "RecordHistory"; readonly file: string; readonly workspace: string; readonly text: string }
  | { readonly _tag: "StartTurn"; readonly input: UserInput }
  /** A command that runs like a turn (spinner, Ctrl+C cancels). */
  | { readonly _tag: "StartCommandTurn"; readonly command: SlashCommand; readonly args: string }
  | { readonly _tag: "StartCommand"; readonly command: SlashCommand; readonly name: string; readonly args: string }
  | { readonly _tag: "CancelTurn" }
  /** Stop what runs, then leave with 0. */
  | { readonly _tag: "Exit" }
  | { readonly _tag: "Finish"; readonly code: number }
  | { readonly _tag: "RefreshStatus" }
  | { readonly _tag: "RenderLater"; readonly ms: number }

export interface Step {
  readonly state: AppState
  readonly effects: ReadonlyArray<AppEffect>
}

export const initialState = (inputs: WorkspaceInputs, status: StatusInfo): AppState => ({
  ...inputs,
  editor: { text: "", cursor: 0, spans: [] },
  images: new Map(),
  nextImageId: 1,
  completion: undefined,
  completionDismissed: undefined,
  partial: "",
  activity: undefined,
  agents: [],
  hint: undefined,
  dialogOpen: false,
  turnSince: undefined,
  commandRunning: false,
  queue: [],
  lastCtrlC: 0,
  tick: 0,
  status,
  exiting: false
})

/** The status line before the session's own facts are read. */
export const firstStatus = (prepared: PreparedSession): StatusInfo => ({
  mode: prepared.document.mode,
  approval: prepared.document.approval,
  model: prepared.model.ref,
  promptSet: "default",
  contextUsed: 0,
  contextWindow: prepared.model.capabilities.contextWindow,
  sessionTokens: { input: 0, output: 0, usd: undefined },
  runningTasks: 0
})

/** A turn, or a command run as one, is running. */
export const turnRunning = (state: AppState): boolean => state.turnSince !== undefined

/** The images of the spans in the editor, in the order they appear. */
export const imagesOf = (state: AppState): ReadonlyArray<ImageRef> =>
  state.editor.spans.flatMap((span) => {
    const image = span.id === undefined ? undefined : state.images.get(span.id)
    return image === undefined ? [] : [image]
  })
