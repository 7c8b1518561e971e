/** What a note can carry of something a plugin threw. */
import { clip } from "../text/clip.ts"

/** An Error's first message line (never its stack); anything else thrown, as text. */
export const firstLine = (error: unknown): string => {
  const text =
    error instanceof Error
      ? `${error.name !== "Error" && !error.message.startsWith(error.name) ? `${error.name}: ` : ""}${error.message}`
      : typeof error === "string"
        ? error
        : `threw ${typeof error === "object" ? JSON.stringify(error) ?? String(error) : String(error)}`
  const line = (text.split(/\r?\n/).find((candidate) => candidate.trim() !== "") ?? "").trim()
  const shown = line === "" ? "no message" : line
  return clip(shown, 300)
}
