/** /init's fixed prompt (the TUI's command and `crystal run "/init"`): explore, then write or propose an edit to AGENTS.md. */
import text from "./init-prompt.md" with { type: "text" }

export const initPrompt: string = text

/** The prompt with what the operator typed after /init, if anything. */
export const initInstruction = (notes: string): string => (notes.trim() === "" ? initPrompt : `${initPrompt}\nThe operator adds: ${notes.trim()}\n`)
