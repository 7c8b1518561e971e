/**
 * Gitignore rules, matched the way ripgrep's `ignore` crate matches them, so that the built-in
 * walker and `rg` select the same files.
 *
 * - A glob compiler with globset semantics (`*` and `?` never cross `/`, `**` only as a whole
 *   path component, `[...]` classes, `{a,b}` alternates, backslash escapes).
 * - Gitignore lines: comments, negation, directory-only (`dir/`), anchored (`/x` or a slash inside),
 *   unanchored (matched at any depth); within one file the last matching line wins.
 * - A single line can also be re-rooted to a parent directory, which is how the ignore files
 *   between the walk root and a searched sub-directory are handed to `rg --ignore-file`.
 */
import { GlobSyntaxError, parseGlob, type Token } from "./glob-parser.ts"

/** The ignore file names honoured in every directory, lowest precedence first. */
export const IGNORE_FILE_NAMES = [".gitignore", ".ignore", ".rgignore"] as const
export type IgnoreFileName = (typeof IGNORE_FILE_NAMES)[number]

export type MatchResult = "ignore" | "whitelist" | undefined


const escapeRegex = (c: string): string => (/[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c)
const escapeClassChar = (c: string): string => (/[\\\]^[-]/.test(c) ? `\\${c}` : c)

// Rust's `.` (used by `**`) matches anything but a newline.
const tokensToRegex = (tokens: ReadonlyArray<Token>): string => {
  let re = ""
  for (const token of tokens) {
    switch (token.kind) {
      case "literal":
        re += escapeRegex(token.char)
        break
      case "any":
        re += "[^/]"
        break
      case "zeroOrMore":
        re += "[^/]*"
        break
      case "recursivePrefix":
        re += "(?:/?|[^\\n]*/)"
        break
      case "recursiveSuffix":
        re += "/[^\\n]*"
        break
      case "recursiveZeroOrMore":
        re += "(?:/|/[^\\n]*/)"
        break
      case "class": {
        re += token.negated ? "[^" : "["
        for (const [lo, hi] of token.ranges) re += lo === hi ? escapeClassChar(lo) : `${escapeClassChar(lo)}-${escapeClassChar(hi)}`
        re += "]"
        break
      }
      case "alternates": {
        const parts = token.branches.map(tokensToRegex).filter((part) => part !== "")
        if (parts.length > 0) re += `(?:${parts.join("|")})`
        break
      }
    }
  }
  return re
}

/** Compiles a glob with globset semantics (literal separator, backslash escapes) to an anchored RegExp. */
export const compileGlob = (glob: string, options: { readonly caseInsensitive?: boolean } = {}): RegExp => {
  const tokens = parseGlob(glob)
  const flags = options.caseInsensitive === true ? "iu" : "u"
  if (tokens.length === 1 && tokens[0]?.kind === "recursivePrefix") return new RegExp("^[^\\n]*$", flags)
  return new RegExp(`^${tokensToRegex(tokens)}$`, flags)
}

export interface IgnoreRule {
  /** The line as written (after trimming). */
  readonly original: string
  /** The glob actually compiled, relative to the ignore file's directory. */
  readonly glob: string
  readonly whitelist: boolean
  readonly onlyDir: boolean
  readonly regex: RegExp
}

interface ParsedLine {
  readonly original: string
  readonly body: string
  readonly whitelist: boolean
  readonly onlyDir: boolean
  readonly anchored: boolean
}

const parseLine = (raw: string): ParsedLine | undefined => {
  let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
  if (line.startsWith("#")) return undefined
  if (!line.endsWith("\\ ")) line = line.trimEnd()
  if (line === "") return undefined
  const original = line
  let whitelist = false
  let anchored = false
  if (line.startsWith("\\!") || line.startsWith("\\#")) {
    line = line.slice(1)
    anchored = line.startsWith("/")
  } else {
    if (line.startsWith("!")) {
      whitelist = true
      line = line.slice(1)
    }
    if (line.startsWith("/")) {
      line = line.slice(1)
      anchored = true
    }
  }
  let onlyDir = false
  if (line.endsWith("/")) {
    onlyDir = true
    line = line.slice(0, -1)
    if (line.endsWith("\\")) line = line.slice(0, -1)
  }
  return { original, body: line, whitelist, onlyDir, anchored: anchored || line.includes("/") }
}

const globOf = (parsed: ParsedLine): string => {
  let glob = parsed.body
  if (!parsed.anchored && !(glob.startsWith("**/") || glob === "**")) glob = `**/${glob}`
  if (glob.endsWith("/**")) glob = `${glob}/*`
  return glob
}

/** Parses one gitignore line; undefined for blank lines, comments and lines that are not valid globs. */
export const parseIgnoreLine = (raw: string): IgnoreRule | undefined => {
  const parsed = parseLine(raw)
  if (parsed === undefined) return undefined
  const glob = globOf(parsed)
  try {
    return { original: parsed.original, glob, whitelist: parsed.whitelist, onlyDir: parsed.onlyDir, regex: compileGlob(glob) }
  } catch {
    return undefined
  }
}

const splitLines = (text: string): Array<string> => (text.startsWith("\uFEFF") ? text.slice(1) : text).split("\n")

/** The rules of one ignore file (or of one glob list); the last matching rule wins. */
export class IgnoreMatcher {
  readonly rules: ReadonlyArray<IgnoreRule>

  constructor(rules: ReadonlyArray<IgnoreRule>) {
    this.rules = rules
  }

  static parse(text: string): IgnoreMatcher {
    const rules: Array<IgnoreRule> = []
    for (const line of splitLines(text)) {
      const rule = parseIgnoreLine(line)
      if (rule !== undefined) rules.push(rule)
    }
    return new IgnoreMatcher(rules)
  }

  get isEmpty(): boolean {
    return this.rules.length === 0
  }

  get hasWhitelist(): boolean {
    return this.rules.some((rule) => rule.whitelist)
  }

  /** `relative`: path from the ignore file's directory, `/`-separated, no leading `./`. */
  match(relative: string, isDir: boolean): MatchResult {
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i]
      if (rule === undefined || (rule.onlyDir && !isDir)) continue
      if (rule.regex.test(relative)) return rule.whitelist ? "whitelist" : "ignore"
    }
    return undefined
  }
}

/**
 * The `-g/--glob` filter of ripgrep: `glob` selects files (whitelist), `!glob` excludes files and
 * directories. A selecting glob also admits files that ignore rules would skip, and every file it
 * does not match is skipped; directories are only ever excluded by a `!glob`.
 */
export class GlobFilter {
  private readonly matcher: IgnoreMatcher

  private constructor(matcher: IgnoreMatcher) {
    this.matcher = matcher
  }

  /** Throws GlobSyntaxError for an invalid glob. */
  static make(glob: string): GlobFilter {
    const parsed = parseLine(glob)
    if (parsed === undefined) throw new GlobSyntaxError("empty glob")
    const compiled = globOf(parsed)
    const rule: IgnoreRule = {
      original: parsed.original,
      glob: compiled,
      // Inverted: a plain glob selects, `!glob` excludes.
      whitelist: !parsed.whitelist,
      onlyDir: parsed.onlyDir,
      regex: compileGlob(compiled)
    }
    return new GlobFilter(new IgnoreMatcher([rule]))
  }

  /** "whitelist" = select even if ignored, "ignore" = skip, undefined = let ignore rules decide. */
  match(relative: string, isDir: boolean): MatchResult {
    const result = this.matcher.match(relative, isDir)
    if (result === undefined && this.matcher.hasWhitelist && !isDir) return "ignore"
    return result
  }
}

const escapeGlobLiteral = (text: string): string => text.replace(/[\\*?[\]{},!]/g, (c) => `\\${c}`)

/**
 * Rewrites the lines of an ignore file found in directory `dir` (relative to the directory the
 * matching is rooted at, `/`-separated, "" for that directory itself) so that they mean the same
 * when matched against paths relative to the root. Used for `rg --ignore-file`.
 */
export const rerootIgnoreText = (text: string, dir: string): string => {
  const out: Array<string> = []
  for (const raw of splitLines(text)) {
    const parsed = parseLine(raw)
    if (parsed === undefined) continue
    if (dir === "") {
      out.push(parsed.original)
      continue
    }
    let body = parsed.body
    if (!parsed.anchored && !(body.startsWith("**/") || body === "**")) body = `**/${body}`
    // A leading `\!` or `\#` escape was dropped by parseLine: after the prefix it is a plain character.
    const line = `${parsed.whitelist ? "!" : ""}/${escapeGlobLiteral(dir)}/${body}${parsed.onlyDir ? "/" : ""}`
    out.push(line)
  }
  return out.join("\n")
}
