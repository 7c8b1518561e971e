/**
 * Prompt history per workspace: Up/Down walk it, the draft being typed is kept while walking.
 * Stored as `$CRYSTAL_HOME/history/<hash of the workspace>.json` (owner-only: prompts can hold
 * private text), rewritten atomically after each submitted prompt, merged with what is on disk.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { writeFileAtomic } from "../files/atomic.ts"

export const historyLimit = 500

export interface History {
  /** Oldest first. */
  readonly entries: ReadonlyArray<string>
  /** entries.length = the draft (not walking). */
  readonly index: number
  readonly draft: string
}

export const makeHistory = (entries: ReadonlyArray<string>): History => ({ entries, index: entries.length, draft: "" })

/** The older entry, or undefined at the oldest. `current` is what the editor holds now. */
export const historyPrevious = (history: History, current: string): { readonly history: History; readonly text: string } | undefined => {
  if (history.index === 0) return undefined
  const index = history.index - 1
  const draft = history.index === history.entries.length ? current : history.draft
  return { history: { ...history, index, draft }, text: history.entries[index] ?? "" }
}

export const historyNext = (history: History): { readonly history: History; readonly text: string } | undefined => {
  if (history.index >= history.entries.length) return undefined
  const index = history.index + 1
  return { history: { ...history, index }, text: index === history.entries.length ? history.draft : (history.entries[index] ?? "") }
}

/** A submitted prompt becomes the newest entry (an immediate repeat is stored once). */
export const historyRecord = (history: History, text: string): History => {
  const trimmed = text.trim()
  if (trimmed === "") return makeHistory(history.entries)
  const entries = history.entries.at(-1) === text ? history.entries : [...history.entries, text].slice(-historyLimit)
  return makeHistory(entries)
}

/** Two 32-bit FNV-1a hashes of the path: a stable file name without loading node:crypto at start-up. */
const workspaceKey = (workspace: string): string => {
  let a = 0x811c9dc5
  let b = 0x01000193
  for (let i = 0; i < workspace.length; i++) {
    const code = workspace.charCodeAt(i)
    a = Math.imul(a ^ code, 0x01000193) >>> 0
    b = Math.imul(b ^ code, 0x811c9dc5 | 1) >>> 0
  }
  return `${a.toString(16).padStart(8, "0")}${b.toString(16).padStart(8, "0")}`
}

export const historyFile = (home: string, workspace: string): string => path.join(home, "history", `${workspaceKey(workspace)}.json`)

type Stored = { readonly _tag: "Entries"; readonly entries: ReadonlyArray<string> } | { readonly _tag: "Unreadable" }

const readStored = (file: string): Stored => {
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? { _tag: "Entries", entries: [] } : { _tag: "Unreadable" }
  }
  try {
    const entries = (JSON.parse(text) as { entries?: unknown }).entries
    if (!Array.isArray(entries)) return { _tag: "Unreadable" }
    return { _tag: "Entries", entries: entries.filter((entry): entry is string => typeof entry === "string").slice(-historyLimit) }
  } catch {
    return { _tag: "Unreadable" }
  }
}

/** A missing or unreadable file is an empty history: losing recall is better than refusing to start. */
export const loadHistory = (file: string): ReadonlyArray<string> => {
  const stored = readStored(file)
  return stored._tag === "Entries" ? stored.entries : []
}

let writes: Promise<void> = Promise.resolve()

/**
 * Adds a prompt to the file as it is on disk now (another crystal in the same workspace may have
 * added its own since this one loaded), one write at a time. A file that does not parse is left
 * alone: it is not ours to replace.
 */
export const appendHistory = (file: string, workspace: string, text: string): Promise<void> => {
  writes = writes
    .then(async () => {
      const stored = readStored(file)
      if (stored._tag === "Unreadable" || text.trim() === "") return
      const entries = stored.entries.at(-1) === text ? stored.entries : [...stored.entries, text].slice(-historyLimit)
      await writeFileAtomic(file, `${JSON.stringify({ workspace, entries }, null, 1)}\n`, { mode: 0o600 })
    })
    .catch(() => {})
  return writes
}
