/**
 * The search tool (its definition is searchSpec in search-spec.ts): ranked search over the files
 * of the workspace (or a granted directory) for a natural-language or keyword query.
 *
 * Two stages. The index (search/forward-index.ts) scores every file: BM25 over its contents, plus boosts
 * for query terms in names it declares, in its file name and in its directory names, scaled by the
 * share of the query it holds. Then the best 2 × limit (at least 20) are checked against the disk
 * and re-read: each line holding a query term is scored by the terms it holds, with a bonus for
 * different query terms next to each other (most inside one identifier, as `parseRetryAfter`),
 * and for a declared name made of query terms. The best line's phrase and adjacency bonus and the
 * best declared name add to the file's score; the 3 best lines are its snippets.
 *
 * The index is built on the first search under a root and kept in the session's cache
 * (search/cache.ts); the call waits for it, and an interrupted call leaves it building.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { statOrNotFound } from "./not-found.ts"
import type { SearchIndexCache } from "../search/cache.ts"
import { withSearchIndex, SEARCH_MAX_FILES, type SearchIndex } from "../search/forward-index.ts"
import type { QueryTerm } from "../search/ranking.ts"
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT } from "./search-spec.ts"
import { parseQuery, SEARCH_MAX_FILE_BYTES, splitWords, stem } from "../search/tokenize.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"
import { ignoreRootFor, toPosix } from "../files/walk/walk.ts"
import { messageOf } from "../text/error-text.ts"
import { formatBytes } from "../text/bytes.ts"

export interface SearchArgs {
  readonly query: string
  readonly path?: string | undefined
  readonly limit?: number | undefined
}

/** Matching lines shown per file, and their length. */
export const SEARCH_SNIPPET_LINES = 3
export const SEARCH_SNIPPET_CHARS = 160
/** Candidates of the first stage re-read for the second: at least this many, or 2 × the limit. */
const RERANK_MIN = 20
/** Lines scored per re-read file at most (the first ones holding a query term), and hits looked at. */
const MAX_SCORED_LINES = 2000
const MAX_HITS = 20_000
/** Bonus (× idf) for query terms sharing the best line, beyond its strongest one. */
const PHRASE_WEIGHT = 1.0
/**
 * Bonus (× the smaller idf) per pair of different query terms next to each other on that line:
 * inside one identifier (`parseRetryAfter`), half as much across two.
 */
const ADJACENT_WEIGHT = 0.75
/** Bonus (× idf) per query term in a name the file declares (the best such line counts). */
const DECLARED_WEIGHT = 1.5
const IDENTIFIER = /[A-Za-z0-9_$\u0080-\uffff]+/g
/**
 * The name a line declares: the identifier after a declaration keyword (and modifiers), or a
 * method or function head `name(...) {` / `name(...): Type {`.
 */
const DECLARED_NAME =
  /^\s*(?:(?:export|pub(?:\([^)]*\))?|public|private|protected|internal|static|async|default|abstract|override|final|declare|readonly|unsafe)\s+)*(?:(?:function\*?|class|interface|type|enum|const|let|var|def|fn|func|struct|trait|impl|module|mod|namespace|object|record|macro)\s+\*?\s*([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\([^)]*\)\s*(?::[^={;]*)?\{\s*$)/
const NOT_NAMES = new Set(["if", "for", "while", "switch", "catch", "return", "with", "else", "do", "try", "function", "new", "await", "typeof"])

export interface SearchLine {
  readonly line: number
  readonly text: string
}

export interface SearchHit {
  /** Path relative to the index root, `/`-separated. */
  readonly rel: string
  readonly score: number
  readonly lines: ReadonlyArray<SearchLine>
}

export interface SearchResult {
  readonly hits: ReadonlyArray<SearchHit>
  readonly truncatedIndex: boolean
}

const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")

const decodeText = (bytes: Uint8Array): string => {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes)
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes)
  return new TextDecoder("utf-8").decode(bytes)
}

/** The line as shown: trimmed, and when long, a window around the first match. */
const snippetText = (line: string, finder: RegExp): string => {
  const text = line.trim()
  if (text.length <= SEARCH_SNIPPET_CHARS) return text
  const at = text.search(finder)
  const start = at <= 40 ? 0 : at - 40
  const end = Math.min(text.length, start + SEARCH_SNIPPET_CHARS)
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`
}

interface Scorer {
  readonly slots: Map<string, number>
  readonly idf: ReadonlyArray<number>
  readonly finder: RegExp
  /** The stems' prefixes as UTF-8 bytes: lower-case, Capitalized and UPPER. */
  readonly needles: ReadonlyArray<Buffer>
  readonly stems: Map<string, string>
}

const makeScorer = (terms: ReadonlyArray<QueryTerm>): Scorer => {
  const slots = new Map<string, number>()
  terms.forEach((term, qi) => slots.set(term.stem, qi))
  // A cheap first test for lines: a stem starts every word it comes from, but for a final "y"
  // (retries, retried → retry).
  const prefixes = terms.map((term) => (term.stem.length > 3 && term.stem.endsWith("y") ? term.stem.slice(0, -1) : term.stem))
  const forms = new Set(prefixes.flatMap((prefix) => [prefix, prefix.charAt(0).toUpperCase() + prefix.slice(1), prefix.toUpperCase()]))
  const needles = [...forms].map((form) => Buffer.from(form, "utf8"))
  return { slots, idf: terms.map((term) => term.idf), finder: new RegExp(prefixes.map(escapeRegExp).join("|"), "i"), needles, stems: new Map() }
}

/** Which query term a word of a line is, or -1; stems a word once per query. */
const slotOfWord = (scorer: Scorer, word: string): number => {
  let s = scorer.stems.get(word)
  if (s === undefined) {
    s = stem(word)
    scorer.stems.set(word, s)
  }
  // A prefix match as the index makes it ("auth" finds "authentication") counts too.
  const exact = scorer.slots.get(s)
  if (exact !== undefined) return exact
  for (const [term, qi] of scorer.slots) if (term.length >= 3 && s.length > term.length && s.startsWith(term)) return qi
  return -1
}

interface LineScore {
  readonly line: number
  readonly score: number
  /** idf of the query terms on the line beyond the strongest one. */
  readonly phrase: number
  /** idf of adjacent pairs of different query terms (see ADJACENT_WEIGHT). */
  readonly adjacent: number
  /** idf of the query terms in the name the line declares. */
  readonly declared: number
  readonly text: string
}

const scoreLine = (scorer: Scorer, text: string, line: number): LineScore | undefined => {
  const present = new Set<number>()
  let adjacent = 0
  let previous = -1
  for (const match of text.matchAll(IDENTIFIER)) {
    // Most identifiers of a line hold no query term: skip them without splitting.
    if (!scorer.finder.test(match[0])) {
      previous = -1
      continue
    }
    let within = false
    for (const word of splitWords(match[0])) {
      const qi = slotOfWord(scorer, word)
      if (qi >= 0) {
        if (previous >= 0 && previous !== qi) adjacent += Math.min(scorer.idf[qi] ?? 0, scorer.idf[previous] ?? 0) * (within ? 1 : 0.5)
        present.add(qi)
      }
      previous = qi
      within = true
    }
  }
  if (present.size === 0) return undefined
  let sum = 0
  let strongest = 0
  for (const qi of present) {
    const w = scorer.idf[qi] ?? 0
    sum += w
    strongest = Math.max(strongest, w)
  }
  let declared = 0
  const head = DECLARED_NAME.exec(text)
  const name = head?.[1] ?? head?.[2]
  if (name !== undefined && !NOT_NAMES.has(name)) {
    const inName = new Set<number>()
    for (const word of splitWords(name)) {
      const qi = slotOfWord(scorer, word)
      if (qi >= 0) inName.add(qi)
    }
    for (const qi of inName) declared += scorer.idf[qi] ?? 0
  }
  return { line, score: sum + ADJACENT_WEIGHT * adjacent + declared, phrase: sum - strongest, adjacent, declared, text }
}

/**
 * The lines of a file that may hold a query term, with their numbers: the byte offsets of the
 * stems' prefixes come from Buffer.indexOf (lower-case, Capitalized and UPPER forms), and only
 * the lines they fall in are decoded.
 */
const candidateLines = (bytes: Buffer, scorer: Scorer): Array<{ readonly line: number; readonly text: string }> => {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)
  const buffer = utf16 ? Buffer.from(decodeText(bytes), "utf8") : bytes
  const hits: Array<number> = []
  for (const needle of scorer.needles) {
    for (let at = buffer.indexOf(needle); at !== -1 && hits.length < MAX_HITS; at = buffer.indexOf(needle, at + needle.length)) hits.push(at)
  }
  hits.sort((a, b) => a - b)
  const found: Array<{ line: number; text: string }> = []
  let line = 1
  let lineStart = 0
  let nextNewline = buffer.indexOf(0x0a)
  let lastLine = 0
  for (const at of hits) {
    while (nextNewline !== -1 && nextNewline < at) {
      line++
      lineStart = nextNewline + 1
      nextNewline = buffer.indexOf(0x0a, lineStart)
    }
    if (line === lastLine) continue
    lastLine = line
    found.push({ line, text: buffer.toString("utf8", lineStart, nextNewline === -1 ? buffer.length : nextNewline) })
    if (found.length >= MAX_SCORED_LINES) break
  }
  return found
}

/** One buffer for the files re-read by queries (at most SEARCH_MAX_FILE_BYTES each): no garbage per file. */
let shared = Buffer.allocUnsafe(64 * 1024)

/** A file's bytes in the shared buffer (valid until the next call), or undefined if unreadable or too big. */
const readShared = (file: string): Buffer | undefined => {
  let fd: number
  try {
    fd = fs.openSync(file, "r")
  } catch {
    return undefined
  }
  try {
    const size = fs.fstatSync(fd).size
    if (size > SEARCH_MAX_FILE_BYTES) return undefined
    if (shared.length < size + 1) shared = Buffer.allocUnsafe(Math.max(size + 1, shared.length * 2))
    let n = 0
    for (;;) {
      const got = fs.readSync(fd, shared, n, shared.length - n, n)
      if (got === 0) break
      n += got
      if (n > SEARCH_MAX_FILE_BYTES) return undefined
      if (n === shared.length) shared = Buffer.concat([shared, Buffer.allocUnsafe(shared.length)])
    }
    return shared.subarray(0, n)
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

/** Re-reads one candidate: its best lines and its phrase bonus. */
const rerankFile = (index: SearchIndex, scorer: Scorer, rel: string, score: number): SearchHit => {
  const bytes = readShared(path.join(index.root, rel))
  if (bytes === undefined) return { rel, score, lines: [] }
  const scored: Array<LineScore> = []
  for (const { line, text } of candidateLines(bytes, scorer)) {
    const result = scoreLine(scorer, text, line)
    if (result !== undefined) scored.push(result)
  }
  scored.sort((a, b) => b.score - a.score || a.line - b.line)
  const best = scored[0]
  let declared = 0
  for (const entry of scored) declared = Math.max(declared, entry.declared)
  const bonus = best === undefined ? 0 : PHRASE_WEIGHT * best.phrase + ADJACENT_WEIGHT * best.adjacent + DECLARED_WEIGHT * declared
  const shown = scored
    .slice(0, SEARCH_SNIPPET_LINES)
    .sort((a, b) => a.line - b.line)
    .map((entry) => ({ line: entry.line, text: snippetText(entry.text, scorer.finder) }))
  return { rel, score: score + bonus, lines: shown }
}

/**
 * Ranks the files under `under` (relative to the index root) for the query stems: the first
 * stage, then the rerank of its best candidates.
 */
export const rankFiles = async (index: SearchIndex, stems: ReadonlyArray<string>, under: string, limit: number): Promise<SearchResult> => {
  const wanted = Math.max(RERANK_MIN, limit * 2)
  let first = index.candidates(stems, under, wanted)
  // What is about to be shown must match the disk: re-index changed candidates and rank again.
  if (await index.verify(first.candidates.map((candidate) => candidate.rel))) first = index.candidates(stems, under, wanted)
  const scorer = makeScorer(first.terms)
  const hits = first.candidates.map((candidate) => rerankFile(index, scorer, candidate.rel, candidate.score))
  hits.sort((a, b) => b.score - a.score || a.rel.length - b.rel.length || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0))
  return { hits: hits.slice(0, limit), truncatedIndex: index.isTruncated }
}


/** The search tool of a session whose indexes `cache` keeps (its definition is searchSpec in search-spec.ts). */
export const makeSearchWorkspace = (cache: SearchIndexCache) => (args: SearchArgs, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    const query = args.query.trim()
    if (query === "") return yield* new ToolError({ message: "query is empty; describe what to find, e.g. \"where are sessions saved\"" })
    const { real, display } = yield* context.fence.resolve(args.path ?? ".", "read")
    yield* Effect.tryPromise({
      try: async () => {
        const stat = await statOrNotFound(context, real, display, "Directory")
        if (!stat.isDirectory()) throw new ToolError({ message: `${display} is not a directory; search takes a directory (use read or grep for one file).` })
      },
      catch: (error) => (error instanceof ToolError ? error : new ToolError({ message: `cannot search ${display}: ${messageOf(error)}` }))
    })
    const parsed = parseQuery(query)
    if (parsed.stems.length === 0) {
      return { text: `"${query}" has no words to search for (common words such as "how", "is" and "the" are skipped); use grep for an exact pattern.` }
    }
    const root = ignoreRootFor(context.fence, real)
    const under = toPosix(path.relative(root, real))
    const limit = Math.min(args.limit ?? SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT)
    const result = yield* Effect.tryPromise({
      try: () => withSearchIndex(cache, root, (index) => rankFiles(index, parsed.stems, under, limit)),
      catch: (error) => new ToolError({ message: `search failed: ${messageOf(error)}` })
    })
    if (result.hits.length === 0) {
      return {
        text:
          `No files match "${query}" in ${display} (.git, ignored, binary, generated and files over ${formatBytes(SEARCH_MAX_FILE_BYTES)} are skipped). ` +
          "Try grep with a pattern, or glob for file names."
      }
    }
    const out: Array<string> = []
    for (const hit of result.hits) {
      out.push(`${context.fence.display(path.join(root, hit.rel))} (${hit.score.toFixed(1)})`)
      for (const line of hit.lines) out.push(`  ${line.line}: ${line.text}`)
    }
    if (result.truncatedIndex) out.push(`[Only the first ${SEARCH_MAX_FILES} files under ${context.fence.display(root)} are indexed; narrow path or use grep.]`)
    return { text: out.join("\n") }
  })
