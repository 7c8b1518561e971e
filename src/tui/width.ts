/**
 * Display width of terminal text (ANSI escapes take no room) and wrapping. Text is measured by
 * grapheme cluster, the unit a terminal draws in one cell or two: an emoji with its skin tone, a
 * ZWJ family, a flag, a letter with combining marks. The widths come from `Bun.stringWidth` in the
 * binary (and wherever Bun runs) and from the `string-width` package elsewhere (vitest under Node),
 * which is then imported here and nowhere on Bun's path.
 */

import { createRequire } from "node:module"

type Measure = (text: string) => number

const bun = (globalThis as { readonly Bun?: { readonly stringWidth: Measure } }).Bun
// Loaded with require (Node 20.19+ requires ES modules), not a top-level await: one top-level
// await anywhere makes Bun split the binary's start-up code into ~20 chunks (docs/startup.md).
const measure: Measure =
  bun !== undefined ? (text) => bun.stringWidth(text) : (createRequire(import.meta.url)("string-width") as { readonly default: Measure }).default

const ansiPattern = /\x1b\[[0-9;?]*[A-Za-z]/g
const ansiSplit = /(\x1b\[[0-9;?]*[A-Za-z])/
const printableAscii = /^[\x20-\x7e]*$/

export const stripAnsi = (text: string): string => text.replace(ansiPattern, "")

let segmenter: Intl.Segmenter | undefined

/** The grapheme clusters of `text` (no escapes in it); plain ASCII is split by character without the segmenter. */
export const graphemes = (text: string): Iterable<string> =>
  printableAscii.test(text) ? text : Array.from((segmenter ??= new Intl.Segmenter()).segment(text), (part) => part.segment)

/** Columns of one grapheme cluster (0 for a control character). */
export const charWidth = (cluster: string): number => {
  if (cluster.length === 1) {
    const code = cluster.charCodeAt(0)
    if (code >= 0x20 && code < 0x7f) return 1
  }
  return measure(cluster)
}

export const textWidth = (text: string): number => {
  const plain = stripAnsi(text)
  return printableAscii.test(plain) ? plain.length : measure(plain)
}

/**
 * Cuts one line (no "\n") into rows of at most `width` columns, at a space when there is one in
 * the row's last two thirds, else mid-word; a grapheme cluster is never cut. ANSI escapes stay
 * where they were; styles are closed at each row end and reopened on the next, so a row can be
 * redrawn alone.
 */
export const wrapLine = (line: string, width: number): Array<string> => {
  const limit = Math.max(1, width)
  const rows: Array<string> = []
  let row = ""
  let used = 0
  let open = ""
  // Just after the row's last space: index in `row`, columns used, styles open there.
  let space: { index: number; used: number; open: string } | undefined
  const close = (text: string, styles: string) => (styles === "" ? text : `${text}\x1b[0m`)
  const add = (char: string) => {
    const w = charWidth(char)
    if (used + w > limit && used > 0 && char === " ") {
      // A space at the edge becomes the break itself.
      rows.push(close(row, open))
      row = open
      used = 0
      space = undefined
      return
    }
    if (used + w > limit && used > 0) {
      if (space !== undefined && space.used > limit / 3) {
        rows.push(close(row.slice(0, space.index), space.open))
        row = space.open + row.slice(space.index)
        used -= space.used
      } else {
        rows.push(close(row, open))
        row = open
        used = 0
      }
      space = undefined
    }
    row += char
    used += w
    if (char === " ") space = { index: row.length, used, open }
  }
  line.split(ansiSplit).forEach((part, index) => {
    if (index % 2 === 1) {
      row += part
      // Styles here never nest across a reset, so any closing code ends what is open.
      open = /^\x1b\[(0|22|23|24|39)m$/.test(part) ? "" : open + part
      return
    }
    for (const char of graphemes(part)) add(char)
  })
  rows.push(row)
  return rows
}

/** Cuts to at most `width` columns with an ellipsis (plain text). */
export const clipText = (text: string, width: number): string => {
  if (textWidth(text) <= width) return text
  let out = ""
  let used = 0
  for (const char of graphemes(stripAnsi(text))) {
    const w = charWidth(char)
    if (used + w > width - 1) break
    out += char
    used += w
  }
  return `${out}…`
}
