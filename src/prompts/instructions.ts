/**
 * Workspace instructions (SPEC E6): AGENTS.md and CRYSTAL.md at the workspace root, both when
 * present, in that order. Read when the system text is composed, so an edit shows at the next
 * mode switch, /model, /approval, /access or resume. Read only as regular files inside the
 * workspace (src/files/confined-read.ts): a link to `~/.ssh/id_ed25519` or a FIFO there is a
 * note, never part of what the model is sent.
 */
import * as path from "node:path"
import { maxInstructionBytes, readConfined, workspaceRoot } from "../files/confined-read.ts"

export const instructionFileNames = ["AGENTS.md", "CRYSTAL.md"] as const

export interface InstructionFile {
  readonly name: string
  readonly text: string
}

export interface Instructions {
  readonly files: ReadonlyArray<InstructionFile>
  /** The files refused, each naming the file and why. */
  readonly notes: ReadonlyArray<string>
}

export const readInstructions = (workspace: string): Instructions => {
  const files: Array<InstructionFile> = []
  const notes: Array<string> = []
  for (const name of instructionFileNames) {
    const read = readConfined(workspaceRoot(workspace), path.join(workspace, name), maxInstructionBytes)
    if (read._tag === "Refused") notes.push(read.note)
    const text = read._tag === "Read" ? read.text.trim() : ""
    if (text !== "") files.push({ name, text })
  }
  return { files, notes }
}
