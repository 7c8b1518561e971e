/** What a note can carry of something a plugin threw. */

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
  return shown.length > 300 ? `${shown.slice(0, 299)}…` : shown
}
