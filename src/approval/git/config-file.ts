/**
 * A reader for git's config file syntax (.git/config, .gitmodules), enough to find the keys the
 * approval checks care about. It follows git's own parser (config.c: git_parse_source,
 * get_base_var, get_value, parse_value) byte for byte, because any difference is a way to hide a
 * key: a backslash continues a value only outside a comment, a comment starts at an unquoted `;`
 * or `#`, only space, tab, CR and LF are white space (git's isspace), unquoted white space inside
 * a value becomes one space each, a NUL ends a key or value (git hands them on as C strings).
 * Whatever git would reject is reported, so callers fail closed; so is a key before any section
 * and a key or value that is not UTF-8 (a path Crystal could not name exactly).
 */

import { clip } from "../../text/clip.ts"

export interface ConfigEntry {
  /** `section.name` or `section.subsection.name`; section and name lower-cased, the subsection as written. */
  readonly key: string
  /** Undefined for a bare `name` line (git reads it as boolean true). */
  readonly value: string | undefined
}

export type ParsedConfig = { readonly ok: true; readonly entries: ReadonlyArray<ConfigEntry> } | { readonly ok: false; readonly line: string }

const LF = 0x0a
const CR = 0x0d
const TAB = 0x09
const SPACE = 0x20
const QUOTE = 0x22
const BACKSLASH = 0x5c
const BOM = [0xef, 0xbb, 0xbf]

/** git's isspace (sane_ctype): vertical tab and form feed are not white space to git. */
const isSpace = (c: number): boolean => c === SPACE || c === TAB || c === LF || c === CR
const isAlpha = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
const isKeyChar = (c: number): boolean => isAlpha(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d
const lower = (c: number): number => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c)
const isComment = (c: number): boolean => c === 0x23 || c === 0x3b

class BadLine extends Error {}

const ESCAPES: Readonly<Partial<Record<number, number>>> = { [QUOTE]: QUOTE, [BACKSLASH]: BACKSLASH, 0x6e: LF, 0x74: TAB, 0x62: 0x08 }

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** The text of a key or value as git's C code sees it: up to the first NUL; null when not UTF-8. */
const cString = (bytes: ReadonlyArray<number>): string | null => {
  const nul = bytes.indexOf(0)
  try {
    return utf8.decode(Uint8Array.from(nul === -1 ? bytes : bytes.slice(0, nul)))
  } catch {
    return null
  }
}

/** git's reading position in a config file: get_next_char and the parts of a line it reads. */
class Scanner {
  pos = 0
  eof = false
  readonly bytes: Buffer
  constructor(bytes: Buffer) {
    this.bytes = bytes
  }

  /** get_next_char: CR LF reads as LF, the end of the file as a final LF. */
  next(): number {
    if (this.pos >= this.bytes.length) {
      this.eof = true
      return LF
    }
    const c = this.bytes[this.pos++] as number
    if (c === CR && this.bytes[this.pos] === LF) {
      this.pos++
      return LF
    }
    return c
  }

  /** parse_value: the text after `=` up to the end of the line, continued by a backslash outside comments. */
  value(): Array<number> {
    const out: Array<number> = []
    let quoted = false
    let comment = false
    let spaces = 0
    for (;;) {
      let c = this.next()
      if (c === LF) {
        if (quoted) throw new BadLine()
        return out
      }
      if (comment) continue
      if (isSpace(c) && !quoted) {
        if (out.length > 0) spaces++
        continue
      }
      if (!quoted && isComment(c)) {
        comment = true
        continue
      }
      for (; spaces > 0; spaces--) out.push(SPACE)
      if (c === BACKSLASH) {
        c = this.next()
        if (c === LF) continue
        const escaped = ESCAPES[c]
        if (escaped === undefined) throw new BadLine()
        out.push(escaped)
        continue
      }
      if (c === QUOTE) quoted = !quoted
      else out.push(c)
    }
  }

  /** get_base_var: `[name]`, `[name.sub]` or `[name "sub"]`, after the `[`. */
  section(): Array<number> {
    const name: Array<number> = []
    for (;;) {
      const c = this.next()
      if (this.eof) throw new BadLine()
      if (c === 0x5d) return name
      if (isSpace(c)) return this.subsection(name, c)
      if (!isKeyChar(c) && c !== 0x2e) throw new BadLine()
      name.push(lower(c))
    }
  }

  /** get_extended_base_var: ` "sub"]` after the section's name, the subsection kept as written. */
  private subsection(name: Array<number>, first: number): Array<number> {
    let c = first
    do {
      if (c === LF) throw new BadLine()
      c = this.next()
    } while (isSpace(c))
    if (c !== QUOTE) throw new BadLine()
    name.push(0x2e)
    for (;;) {
      c = this.next()
      if (c === LF) throw new BadLine()
      if (c === QUOTE) break
      if (c === BACKSLASH) {
        c = this.next()
        if (c === LF) throw new BadLine()
      }
      name.push(c)
    }
    if (this.next() !== 0x5d) throw new BadLine()
    return name
  }

  /** get_value: the rest of a key's name (its first letter read), then `= value` or nothing. */
  entry(name: Array<number>): ConfigEntry {
    let c: number
    for (;;) {
      c = this.next()
      if (this.eof || !isKeyChar(c)) break
      name.push(lower(c))
    }
    while (c === SPACE || c === TAB) c = this.next()
    let value: Array<number> | undefined = undefined
    if (c !== LF) {
      if (c !== 0x3d) throw new BadLine()
      value = this.value()
    }
    const key = cString(name)
    const text = value === undefined ? undefined : cString(value)
    if (key === null || text === null) throw new BadLine()
    return { key, value: text }
  }
}

/** git_parse_source: sections, entries, comments and blank lines, after an optional UTF-8 byte order mark. */
export const parseGitConfig = (input: Buffer | string): ParsedConfig => {
  const scanner = new Scanner(typeof input === "string" ? Buffer.from(input, "utf8") : input)
  const { bytes } = scanner
  const entries: Array<ConfigEntry> = []
  try {
    if (bytes[0] === BOM[0]) {
      if (bytes[1] !== BOM[1] || bytes[2] !== BOM[2]) throw new BadLine()
      scanner.pos = 3
    }
    let section: Array<number> | undefined = undefined
    let comment = false
    for (;;) {
      const c = scanner.next()
      if (c === LF) {
        if (scanner.eof) return { ok: true, entries }
        comment = false
      } else if (comment || isSpace(c)) continue
      else if (isComment(c)) comment = true
      else if (c === 0x5b) {
        section = scanner.section()
        if (section.length === 0) throw new BadLine()
      } else if (isAlpha(c) && section !== undefined) entries.push(scanner.entry([...section, 0x2e, lower(c)]))
      // A key before any section is one git lists but no setting reads: refused, to fail closed.
      else throw new BadLine()
    }
  } catch (error) {
    if (error instanceof BadLine) return { ok: false, line: lineAround(bytes, scanner.pos) }
    throw error
  }
}

/** The line git stopped on, as one line of text for a reason. */
const lineAround = (bytes: Buffer, pos: number): string => {
  const at = Math.max(0, Math.min(pos, bytes.length) - 1)
  const start = bytes.lastIndexOf(LF, bytes[at] === LF ? at - 1 : at) + 1
  const end = bytes.indexOf(LF, start)
  const text = bytes.subarray(start, end === -1 ? bytes.length : end).toString("utf8").trim()
  return clip(text, 120)
}
