/**
 * Finding old_string in a file for edit: exact matches (with the file's line endings), and when
 * there is none, the closest region of the file and what most likely differs, so that the model
 * can correct its call.
 */

// ---------------------------------------------------------------------------------------------
// Exact matches and line endings
// ---------------------------------------------------------------------------------------------

export const toLF = (text: string): string => text.replace(/\r\n/g, "\n")
export const toCRLF = (text: string): string => toLF(text).replace(/\n/g, "\r\n")

/** Start offsets of every occurrence of `needle`, overlapping ones included. */
export const occurrences = (text: string, needle: string): Array<number> => {
  const found: Array<number> = []
  if (needle.length === 0) return found
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) found.push(i)
  return found
}

/** CRLF when most of the line breaks of `text` are CRLF, LF when most are LF, else `tie`. */
export const lineEndingOf = (text: string, tie: "\n" | "\r\n" = "\n"): "\n" | "\r\n" => {
  let lf = 0
  let crlf = 0
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++
    else lf++
  }
  return crlf > lf ? "\r\n" : lf > crlf ? "\n" : tie
}

export interface Match {
  readonly start: number
  readonly end: number
  /** new_string with the line endings of the text it replaces. */
  readonly replacement: string
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Every occurrence of old_string in `text`, overlapping ones included: as given, or else with any
 * line ending at each of its line breaks (a model writes `\n` whatever the file uses, and a file
 * may mix CRLF and LF). Each replacement takes the line endings of the text it replaces, or of the
 * file when that text has no line break.
 */
export const locate = (text: string, oldString: string, newString: string): Array<Match> => {
  const fileEnding = lineEndingOf(text)
  const withEnding = (matched: string): string => (lineEndingOf(matched, fileEnding) === "\r\n" ? toCRLF(newString) : toLF(newString))
  const exact = occurrences(text, oldString)
  if (exact.length > 0) {
    const replacement = withEnding(oldString)
    return exact.map((start) => ({ start, end: start + oldString.length, replacement }))
  }
  if (!oldString.includes("\n")) return []
  const pattern = new RegExp(toLF(oldString).split("\n").map(escapeRegExp).join("\\r?\\n"), "g")
  const matches: Array<Match> = []
  for (let found = pattern.exec(text); found !== null; found = pattern.exec(text)) {
    matches.push({ start: found.index, end: found.index + found[0].length, replacement: withEnding(found[0]) })
    pattern.lastIndex = found.index + 1
  }
  return matches
}

/** The matches replace_all changes: left to right, never overlapping. */
export const disjoint = (matches: ReadonlyArray<Match>): Array<Match> => {
  const kept: Array<Match> = []
  for (const match of matches) {
    const last = kept[kept.length - 1]
    if (last === undefined || match.start >= last.end) kept.push(match)
  }
  return kept
}

// ---------------------------------------------------------------------------------------------
// Near misses
// ---------------------------------------------------------------------------------------------

const collapse = (line: string): string => line.trim().replace(/\s+/g, " ")

const bigrams = (text: string): Map<string, number> => {
  const counts = new Map<string, number>()
  for (let i = 0; i < text.length - 1; i++) {
    const pair = text.slice(i, i + 2)
    counts.set(pair, (counts.get(pair) ?? 0) + 1)
  }
  return counts
}

/** Sørensen–Dice coefficient of the character bigrams. */
const dice = (a: Map<string, number>, b: Map<string, number>, aSize: number, bSize: number): number => {
  if (aSize + bSize === 0) return 1
  let shared = 0
  const [small, large] = a.size <= b.size ? [a, b] : [b, a]
  for (const [pair, count] of small) shared += Math.min(count, large.get(pair) ?? 0)
  return (2 * shared) / (aSize + bSize)
}

/** A line prepared for comparison: collapsed whitespace and its bigrams, computed once. */
class Line {
  readonly raw: string
  readonly collapsed: string
  /** Without any whitespace: equal for lines that differ in whitespace only. */
  readonly bare: string
  private grams: Map<string, number> | undefined
  constructor(raw: string) {
    this.raw = raw
    this.collapsed = collapse(raw)
    this.bare = this.collapsed.replace(/ /g, "")
  }
  get bigrams(): Map<string, number> {
    return (this.grams ??= bigrams(this.collapsed))
  }
  get weight(): number {
    return this.collapsed.length + 1
  }
}

/**
 * How much file line `a` looks like old_string line `b`: 1 when identical, 0.95 when only
 * whitespace differs, else up to 0.9 by bigram similarity. An `edge` line (the first or last of
 * old_string, which may start or end mid-line) also scores by how much of `b` is found in `a`.
 */
const lineSimilarity = (a: Line, b: Line, edge = false): number => {
  if (a.raw === b.raw) return 1
  if (a.bare === b.bare) return 0.95
  if (a.collapsed.length < 2 || b.collapsed.length < 2) return 0
  const aSize = a.collapsed.length - 1
  const bSize = b.collapsed.length - 1
  const similar = dice(a.bigrams, b.bigrams, aSize, bSize)
  if (!edge || aSize <= bSize) return 0.9 * similar
  const contained = (similar * (aSize + bSize)) / 2 / bSize
  return 0.9 * Math.max(similar, 0.9 * contained)
}

export interface NearMiss {
  /** 1-based first and last line of the file region. */
  readonly from: number
  readonly to: number
  /** Weighted similarity, 0–1. */
  readonly score: number
  /** File lines (1-based) that differ from the corresponding old_string line. */
  readonly differing: ReadonlyArray<number>
  /** What differs, when it is only whitespace: "indentation", "tabs vs spaces", ... */
  readonly whitespace: string | undefined
  /** old_string has more lines than the file has from `from` on. */
  readonly pastEnd: boolean
}

/** Below this a region is not worth showing. */
export const NEAR_MISS_THRESHOLD = 0.5
/** Scoring every window costs lines × window; above this only anchored windows are scored. */
const FULL_SCAN_BUDGET = 400_000
const MAX_ANCHORED = 200

const scoreWindow = (file: ReadonlyArray<Line>, wanted: ReadonlyArray<Line>, start: number): number => {
  let total = 0
  let weights = 0
  for (let i = 0; i < wanted.length; i++) {
    const w = wanted[i] as Line
    const f = file[start + i]
    const weight = w.weight
    weights += weight
    if (f !== undefined) total += weight * lineSimilarity(f, w, i === 0 || i === wanted.length - 1)
  }
  return weights === 0 ? 0 : total / weights
}

/** Window starts where some line equals (whitespace aside) the corresponding old_string line, most agreeing first. */
const anchoredStarts = (file: ReadonlyArray<Line>, wanted: ReadonlyArray<Line>): Array<number> => {
  const positions = new Map<string, Array<number>>()
  wanted.forEach((line, i) => {
    if (line.bare.length === 0) return
    const list = positions.get(line.bare)
    if (list === undefined) positions.set(line.bare, [i])
    else list.push(i)
  })
  const votes = new Map<number, number>()
  file.forEach((line, j) => {
    for (const i of positions.get(line.bare) ?? []) {
      const start = j - i
      if (start >= 0) votes.set(start, (votes.get(start) ?? 0) + line.weight)
    }
  })
  if (votes.size === 0) {
    // No line agrees: place the window by the longest old_string line's most similar file lines.
    let longest = 0
    wanted.forEach((line, i) => {
      if (line.collapsed.length > (wanted[longest]?.collapsed.length ?? 0)) longest = i
    })
    const probe = wanted[longest] as Line
    const scored = file.map((line, j) => [j - longest, lineSimilarity(line, probe)] as const).filter(([start, score]) => start >= 0 && score > 0)
    scored.sort((a, b) => b[1] - a[1] || a[0] - b[0])
    return scored.slice(0, 20).map(([start]) => start)
  }
  return [...votes.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, Math.max(10, Math.min(MAX_ANCHORED, Math.floor(FULL_SCAN_BUDGET / wanted.length))))
    .map(([start]) => start)
}

const leading = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? ""

/** When every line differs in whitespace only: which kind of whitespace. */
const describeWhitespace = (file: ReadonlyArray<string>, wanted: ReadonlyArray<string>): string => {
  let indentation = false
  let fileTabs = false
  let wantedTabs = false
  let trailing = false
  let inner = false
  wanted.forEach((w, i) => {
    const f = file[i] ?? ""
    if (f === w) return
    const fl = leading(f)
    const wl = leading(w)
    if (fl !== wl) {
      indentation = true
      if (fl.includes("\t")) fileTabs = true
      if (wl.includes("\t")) wantedTabs = true
    }
    if (f.slice(f.trimEnd().length) !== w.slice(w.trimEnd().length)) trailing = true
    if (f.trim() !== w.trim()) inner = true
  })
  const kinds: Array<string> = []
  if (indentation) {
    if (fileTabs && !wantedTabs) kinds.push("indentation: the file indents with tabs, old_string with spaces")
    else if (wantedTabs && !fileTabs) kinds.push("indentation: the file indents with spaces, old_string with tabs")
    else kinds.push("indentation")
  }
  if (inner) kinds.push("spacing within lines")
  if (trailing) kinds.push("trailing whitespace")
  return kinds.length === 0 ? "whitespace" : kinds.join("; ")
}

/**
 * The region of `text` most similar to `wanted` (line by line, whitespace-insensitive first), or
 * undefined when nothing is similar enough to help.
 */
export const nearMiss = (text: string, wanted: string): NearMiss | undefined => {
  const fileRaw = splitPlain(text)
  const wantedRaw = splitPlain(wanted)
  if (fileRaw.length === 0 || wantedRaw.length === 0) return undefined
  const file = fileRaw.map((line) => new Line(line))
  const want = wantedRaw.map((line) => new Line(line))
  // Windows may run past the end of the file (the missing lines score nothing).
  const lastStart = file.length - 1
  const starts =
    (lastStart + 1) * want.length <= FULL_SCAN_BUDGET ? Array.from({ length: lastStart + 1 }, (_, i) => i) : anchoredStarts(file, want)
  let best = -1
  let bestScore = 0
  for (const start of starts) {
    if (start > lastStart) continue
    const score = scoreWindow(file, want, start)
    if (score > bestScore) {
      best = start
      bestScore = score
    }
  }
  if (best < 0 || bestScore < NEAR_MISS_THRESHOLD) return undefined
  const to = Math.min(file.length, best + want.length)
  const differing: Array<number> = []
  let onlyWhitespace = true
  for (let i = 0; i < want.length; i++) {
    const f = file[best + i]
    const w = want[i] as Line
    if (f === undefined) {
      onlyWhitespace = false
      continue
    }
    if (f.raw !== w.raw) differing.push(best + i + 1)
    if (f.bare !== w.bare) onlyWhitespace = false
  }
  const whitespace =
    onlyWhitespace && differing.length > 0 ? describeWhitespace(fileRaw.slice(best, to), wantedRaw) : undefined
  return { from: best + 1, to, score: bestScore, differing, whitespace, pastEnd: best + want.length > file.length }
}

/** Lines without terminators; a final newline does not start another line. */
const splitPlain = (text: string): Array<string> => {
  if (text.length === 0) return []
  const lines = toLF(text).split("\n")
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop()
  return lines
}

// ---------------------------------------------------------------------------------------------
// Common mistakes, recognised exactly
// ---------------------------------------------------------------------------------------------

const LINE_PREFIX = /^ *\d+\t/

/** old_string with read's `N<tab>` prefixes removed, when every non-empty line has one. */
export const withoutLinePrefixes = (oldString: string): string | undefined => {
  const lines = toLF(oldString).split("\n")
  const filled = lines.filter((line) => line.length > 0)
  if (filled.length === 0 || !filled.every((line) => LINE_PREFIX.test(line))) return undefined
  return lines.map((line) => line.replace(LINE_PREFIX, "")).join("\n")
}

/** old_string with literal `\n`, `\t`, `\"`, `\'` and `\\` turned into the characters, when it has any. */
export const unescaped = (oldString: string): string | undefined => {
  if (!/\\[nt"'\\]/.test(oldString)) return undefined
  const result = oldString.replace(/\\([nt"'\\])/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c))
  return result === oldString ? undefined : result
}
