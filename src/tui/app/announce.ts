/** The lines that say which session the app is on: at start, and after /clear, /resume, /fork, /cd or /space. */
import type { ActiveSession } from "../../../layers/session-host.ts"
import type { Palette } from "../../terminal/colors.ts"
import type { SwitchKind } from "../../../layers/session-host.ts"

const notesOf = (active: ActiveSession, palette: Palette): Array<string> =>
  [...active.prepared.notes, ...active.session.notes].map((note) => palette.yellow(note))

/** `commandNotes`: why command files were refused (src/prompts/command-files.ts), said once at start and in /help. */
export const greeting = (active: ActiveSession, palette: Palette, commandNotes: ReadonlyArray<string> = []): Array<string> => {
  const { prepared } = active
  return [
    `${palette.bold("Crystal")} ${palette.dim(`· ${prepared.model.ref} · ${prepared.document.workspace}`)}`,
    palette.dim(`session ${prepared.document.id}${prepared.resumed ? " (resumed)" : ""} · /help for commands and keys · Ctrl+D leaves`),
    ...notesOf(active, palette),
    ...commandNotes.map((note) => palette.yellow(note)),
    ""
  ]
}

export const switchedTo = (active: ActiveSession, how: SwitchKind, palette: Palette): Array<string> => {
  const doc = active.prepared.document
  const title = doc.title === undefined ? "" : ` · ${doc.title}`
  const header = {
    clear: `new session ${doc.id}`,
    fork: `forked into session ${doc.id} (from ${doc.parent ?? "?"})`,
    resume: `resumed session ${doc.id}${title}`,
    cd: `workspace ${doc.workspace} · session ${doc.id} goes on here`,
    space: `workspace ${doc.workspace} · new session ${doc.id}`
  }[how]
  return [palette.dim(header), ...notesOf(active, palette)]
}
