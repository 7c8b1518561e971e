/**
 * Shell pattern matching of one file name against one glob segment (`*`, `?`, `[…]`), as bash matches
 * directory entries: a leading dot must be matched explicitly; `*` and `?` match a newline too.
 */
export const globMatches = (pattern: string, name: string): boolean => {
  if (name.startsWith(".") && !pattern.startsWith(".")) return false
  let source = ""
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === "*") source += ".*"
    else if (c === "?") source += "."
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2)
      if (end === -1) source += "\\["
      else {
        const body = pattern.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")
        source += `[${body}]`
        i = end
      }
    } else source += c.replace(/[.+^${}()|\\\]]/g, "\\$&")
  }
  try {
    return new RegExp(`^${source}$`, "s").test(name)
  } catch {
    return true
  }
}
