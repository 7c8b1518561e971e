/**
 * Which text is in force for a named prompt, and where it came from (SPEC P4): built-in < the
 * selected prompt set < ~/.crystal/prompts/NAME.md < <workspace>/.crystal/prompts/NAME.md (.txt
 * accepted). A missing or empty file falls back to the next lower level. Files are read when a
 * text is composed, so an edit applies at the next composition; nothing here ever writes them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
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
}

/** The selected prompt set's text for a name, when it has a non-empty file for it. */
export type SetLookup = (name: PromptName) => { readonly set: string; readonly file: string; readonly text: string } | undefined

export interface PromptLocations {
  /** ~/.crystal/prompts */
  readonly homePrompts: string
  /** <workspace>/.crystal/prompts; undefined where the workspace must not be heard (the reviewer). */
  readonly workspacePrompts: string | undefined
  readonly set?: SetLookup | undefined
}

/** The first of NAME.md, NAME.txt in `dir` that exists and is not empty. */
export const readPromptFile = (dir: string, name: PromptName): { readonly file: string; readonly text: string } | undefined => {
  for (const fileName of promptFileNames(name)) {
    const file = path.join(dir, fileName)
    try {
      const text = fs.readFileSync(file, "utf8")
      if (text.trim() !== "") return { file, text }
    } catch {
      // missing or unreadable: the next candidate, then the next level down
    }
  }
  return undefined
}

export const resolvePrompt = (name: PromptName, locations: PromptLocations): ResolvedPrompt => {
  const fromWorkspace = locations.workspacePrompts === undefined ? undefined : readPromptFile(locations.workspacePrompts, name)
  if (fromWorkspace !== undefined) return { name, text: fromWorkspace.text, source: { kind: "workspace", file: fromWorkspace.file } }
  const fromHome = readPromptFile(locations.homePrompts, name)
  if (fromHome !== undefined) return { name, text: fromHome.text, source: { kind: "home", file: fromHome.file } }
  const fromSet = locations.set?.(name)
  if (fromSet !== undefined) return { name, text: fromSet.text, source: { kind: "set", set: fromSet.set, file: fromSet.file } }
  return { name, text: builtinPrompts[name].text, source: { kind: "builtin" } }
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
