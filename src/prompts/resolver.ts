/**
 * Which text is in force for a named prompt, and where it came from (SPEC P4): built-in < the
 * selected prompt set < ~/.crystal/prompts/NAME.md < <workspace>/.crystal/prompts/NAME.md (.txt
 * accepted). A missing or empty file falls back to the next lower level. Files are read when a
 * text is composed, so an edit applies at the next composition; nothing here ever writes them.
 */
import * as path from "node:path"
import { maxInstructionBytes, readConfined, type ConfinedRoot } from "../files/confined-read.ts"
import { builtinPrompts } from "./builtin/index.ts"
import { promptFileNames, type PromptName } from "./names.ts"

export type PromptSource =
  | { readonly kind: "builtin" }
  | { readonly kind: "set"; readonly set: string; readonly file: string }
  | { readonly kind: "home"; readonly file: string }
  | { readonly kind: "workspace"; readonly file: string }

export interface ResolvedPrompt {
  readonly name: PromptName
  readonly text: string
  readonly source: PromptSource
  /** Prompt files refused on the way (a link out of their root, a FIFO, too large), each naming the file. */
  readonly notes: ReadonlyArray<string>
}

/** The selected prompt set's text for a name, when it has a non-empty file for it. */
export type SetLookup = (name: PromptName) => { readonly set: string; readonly file: string; readonly text: string } | undefined

/** A folder of prompt files, and the root its files must stay inside (the Crystal home, the workspace). */
export interface PromptDir {
  readonly dir: string
  readonly root: ConfinedRoot
}

export interface PromptLocations {
  /** ~/.crystal/prompts */
  readonly homePrompts: PromptDir
  /** <workspace>/.crystal/prompts; undefined where the workspace must not be heard (the reviewer). */
  readonly workspacePrompts: PromptDir | undefined
  readonly set?: SetLookup | undefined
}

/** The first of NAME.md, NAME.txt in `at` that exists and is not empty; a refused file is a note and counts as missing. */
export const readPromptFile = (at: PromptDir, name: PromptName, notes: Array<string>): { readonly file: string; readonly text: string } | undefined => {
  for (const fileName of promptFileNames(name)) {
    const read = readConfined(at.root, path.join(at.dir, fileName), maxInstructionBytes)
    if (read._tag === "Refused") notes.push(read.note)
    if (read._tag === "Read" && read.text.trim() !== "") return { file: read.file, text: read.text }
  }
  return undefined
}

export const resolvePrompt = (name: PromptName, locations: PromptLocations): ResolvedPrompt => {
  const notes: Array<string> = []
  const fromWorkspace = locations.workspacePrompts === undefined ? undefined : readPromptFile(locations.workspacePrompts, name, notes)
  if (fromWorkspace !== undefined) return { name, text: fromWorkspace.text, source: { kind: "workspace", file: fromWorkspace.file }, notes }
  const fromHome = readPromptFile(locations.homePrompts, name, notes)
  if (fromHome !== undefined) return { name, text: fromHome.text, source: { kind: "home", file: fromHome.file }, notes }
  const fromSet = locations.set?.(name)
  if (fromSet !== undefined) return { name, text: fromSet.text, source: { kind: "set", set: fromSet.set, file: fromSet.file }, notes }
  return { name, text: builtinPrompts[name].text, source: { kind: "builtin" }, notes }
}

export const describeSource = (source: PromptSource): string => {
  switch (source.kind) {
    case "builtin":
      return "built-in"
    case "set":
      return `prompt set ${source.set}`
    case "home":
      return `home file ${source.file}`
    case "workspace":
      return `workspace file ${source.file}`
  }
}
