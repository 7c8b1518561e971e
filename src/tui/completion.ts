/**
 * Completion menus of the input: `/command` at the start of the input (with descriptions) and
 * `@path` mentions of workspace files anywhere. Pure, except `listWorkspaceFiles`.
 */
import { WalkDir } from "../files/walk/walk.ts"
import { replaceRange, type EditorState } from "./editor-state.ts"

export interface CompletionItem {
  /** What replaces the typed word. */
  readonly value: string
  readonly description: string
}

export interface Completion {
  readonly kind: "command" | "file"
  readonly items: ReadonlyArray<CompletionItem>
  readonly selected: number
  /** The range of the text the chosen item replaces. */
  readonly from: number
  readonly to: number
}

export interface CommandEntry {
  readonly name: string
  readonly description: string
}

export const maxItems = 8

export const findCompletion = (
  state: EditorState,
  commands: () => ReadonlyArray<CommandEntry>,
  files: () => ReadonlyArray<string>
): Completion | undefined => {
  const before = state.text.slice(0, state.cursor)
  const command = /^\/(\S*)$/.exec(before)
  if (command !== null && !/\S/.test(state.text.slice(state.cursor, state.cursor + 1))) {
    const typed = (command[1] ?? "").toLowerCase()
    const items = commands()
      .filter((entry) => entry.name.toLowerCase().startsWith(typed))
      .map((entry) => ({ value: `/${entry.name}`, description: entry.description }))
    return items.length === 0 ? undefined : { kind: "command", items, selected: 0, from: 0, to: state.cursor }
  }
  const mention = /(^|\s)@([^\s@]*)$/.exec(before)
  if (mention !== null) {
    const query = (mention[2] ?? "").toLowerCase()
    const from = state.cursor - (mention[2] ?? "").length - 1
    const ranked = files()
      .map((file) => ({ file, rank: rankFile(file.toLowerCase(), query) }))
      .filter((entry) => entry.rank >= 0)
      .sort((a, b) => a.rank - b.rank || a.file.length - b.file.length || a.file.localeCompare(b.file))
      .slice(0, maxItems)
    if (ranked.length === 0) return undefined
    return { kind: "file", items: ranked.map(({ file }) => ({ value: `@${file}`, description: "" })), selected: 0, from, to: state.cursor }
  }
  return undefined
}

/** Lower is better; -1 = no match. Name prefix beats path prefix beats a match anywhere. */
const rankFile = (file: string, query: string): number => {
  if (query === "") return 2
  const base = file.slice(file.lastIndexOf("/") + 1)
  if (base.startsWith(query)) return 0
  if (file.startsWith(query)) return 1
  return file.includes(query) ? 2 : -1
}

export const moveSelection = (completion: Completion, delta: number): Completion => {
  const count = completion.items.length
  return { ...completion, selected: (((completion.selected + delta) % count) + count) % count }
}

/** Puts the selected item in place of the typed word, followed by a space. */
export const acceptCompletion = (state: EditorState, completion: Completion): EditorState => {
  const item = completion.items[completion.selected]
  return item === undefined ? state : replaceRange(state, completion.from, completion.to, `${item.value} `)
}

const skippedDirs = new Set(["node_modules", "dist", "build", "target", ".venv", "__pycache__", ".next", "coverage"])

/**
 * Workspace files for @ mentions, relative with "/" separators, shallow ones first; what the
 * workspace's .gitignore (.ignore, .rgignore) files leave out is left out, as the file tools do
 * (files/walk/walk.ts). Bounded so a huge tree cannot stall typing.
 */
export const listWorkspaceFiles = (root: string, limit = 5000): ReadonlyArray<string> => {
  const out: Array<string> = []
  const queue: Array<WalkDir> = [WalkDir.openRoot(root)]
  while (queue.length > 0 && out.length < limit) {
    const dir = queue.shift() as WalkDir
    for (const entry of dir.entriesSync()) {
      if (entry.kind === "dir") {
        if (!skippedDirs.has(entry.name)) queue.push(dir.child(entry))
      } else if (entry.kind === "file" || entry.kind === "symlink") out.push(entry.relative)
      if (out.length >= limit) break
    }
  }
  return out
}
