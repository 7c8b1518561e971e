/**
 * A schema decoding failure as lines a person reads, one per field ("providers.x.baseURL: expected
 * string, got 3"). Serves config.json, session files and tool arguments alike.
 */
import * as ParseResult from "effect/ParseResult"

export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join("")

/** Issues grouped per field: a union's alternatives become one "expected A or B" line. */
export const describeParseError = (error: ParseResult.ParseError): ReadonlyArray<string> => {
  const groups = new Map<string, { path: ReadonlyArray<PropertyKey>; expected: Array<string>; actual?: string; other: Array<string> }>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const key = formatPath(issue.path)
    const group = groups.get(key) ?? { path: issue.path, expected: [], other: [] }
    groups.set(key, group)
    const typeMismatch = /^Expected (.*), actual (.*)$/s.exec(issue.message)
    if (issue._tag === "Type" && typeMismatch !== null) {
      // Optional fields add an "Expected undefined" alternative that only confuses.
      if (typeMismatch[1] !== "undefined") group.expected.push(typeMismatch[1] ?? "")
      group.actual = typeMismatch[2] ?? ""
    } else {
      group.other.push(issue.message)
    }
  }
  // A group left with no alternatives held only the "undefined" of an optional parent whose real problem is nested.
  const useful = [...groups.entries()].filter(([, group]) => group.expected.length > 0 || group.other.length > 0)
  return useful.map(([key, group]) => {
    const message =
      group.other[0] ?? `expected ${group.expected.join(" or ")}, got ${group.actual ?? "something else"}`
    return key === "" ? message : `${key}: ${message}`
  })
}
