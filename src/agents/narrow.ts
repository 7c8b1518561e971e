/**
 * An agent's `tools` list against its parent's catalog (issue 26): the child gets the parent's
 * tools that the list names, in the parent's order, and never a tool the parent lacks. A pattern
 * is a tool name, or one with `*` standing for any run of characters (`mcp__files__*`, `bash*`,
 * `*`). Names are matched exactly, case included.
 */

/** A pattern as a whole-name test; every character but `*` is literal. */
export const toolPattern = (pattern: string): ((name: string) => boolean) => {
  if (!pattern.includes("*")) return (name) => name === pattern
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*")
  const regex = new RegExp(`^${source}$`, "s")
  return (name) => regex.test(name)
}

/**
 * The parent's tool names that `patterns` name, in the parent's order; `undefined` patterns (the
 * agent gave no list) keep all of them. The result is always a subset of `parentToolNames`.
 */
export const narrowTools = (parentToolNames: ReadonlyArray<string>, patterns: ReadonlyArray<string> | undefined): ReadonlyArray<string> => {
  if (patterns === undefined) return [...parentToolNames]
  const tests = patterns.map(toolPattern)
  return parentToolNames.filter((name) => tests.some((test) => test(name)))
}

/** The patterns that name none of the parent's tools (for a note: a typo, or a tool this session does not offer). */
export const unmatchedPatterns = (parentToolNames: ReadonlyArray<string>, patterns: ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  (patterns ?? []).filter((pattern) => {
    const test = toolPattern(pattern)
    return !parentToolNames.some(test)
  })
