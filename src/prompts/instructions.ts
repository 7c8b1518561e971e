/**
 * Workspace instructions (SPEC E6): AGENTS.md and CRYSTAL.md at the workspace root, both when
 * present, in that order. Read when the system text is composed, so an edit shows at the next
 * mode switch, /model, /approval, /access or resume.
 */
import * as fs from "node:fs"
import * as path from "node:path"

export const instructionFileNames = ["AGENTS.md", "CRYSTAL.md"] as const

export interface InstructionFile {
  readonly name: string
  readonly text: string
}

export const readInstructions = (workspace: string): ReadonlyArray<InstructionFile> =>
  instructionFileNames.flatMap((name) => {
    try {
      const text = fs.readFileSync(path.join(workspace, name), "utf8").trim()
      return text === "" ? [] : [{ name, text }]
    } catch {
      return []
    }
  })
