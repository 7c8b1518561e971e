/** Display width of terminal text (ANSI escapes take no room, wide characters take two) and wrapping. */

const ansiPattern = /\x1b\[[0-9;?]*[A-Za-z]/g

export const stripAnsi = (text: string): string => text.replace(ansiPattern, "")

const isWide = (code: number): boolean =>
  (code >= 0x1100 && code <= 0x115f) ||
  (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
  (code >= 0xac00 && code <= 0xd7a3) ||
  (code >= 0xf900 && code <= 0xfaff) ||
  (code >= 0xfe30 && code <= 0xfe4f) ||
  (code >= 0xff00 && code <= 0xff60) ||
  (code >= 0xffe0 && code <= 0xffe6) ||
  (code >= 0x1f300 && code <= 0x1faff) ||
  (code >= 0x20000 && code <= 0x3fffd)

export const charWidth = (char: string): number => {
  const code = char.codePointAt(0) ?? 0
  if (code < 32 || (code >= 0x7f && code < 0xa0)) return 0
  // Combining marks and zero-width joiners.
  if ((code >= 0x300 && code <= 0x36f) || code === 0x200d || (code >= 0xfe00 && code <= 0xfe0f)) return 0
  return isWide(code) ? 2 : 1
}

export const textWidth = (text: string): number => {
  let width = 0
  for (const char of stripAnsi(text)) width += charWidth(char)
  return width
}

/**
 * Cuts one line (no "\n") into rows of at most `width` columns, at a space when there is one in
 * the row's last two thirds, else mid-word. ANSI escapes stay where they were; styles are closed
 * at each row end and reopened on the next, so a row can be redrawn alone.
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
  let i = 0
  while (i < line.length) {
    if (line[i] === "\x1b") {
      const match = /^\x1b\[[0-9;?]*[A-Za-z]/.exec(line.slice(i, i + 24))
      if (match !== null) {
        row += match[0]
        // Styles here never nest across a reset, so any closing code ends what is open.
        open = /^\x1b\[(0|22|23|24|39)m$/.test(match[0]) ? "" : open + match[0]
        i += match[0].length
        continue
      }
    }
    const codePoint = line.codePointAt(i) ?? 0
    const char = String.fromCodePoint(codePoint)
    const w = charWidth(char)
    if (used + w > limit && used > 0 && char === " ") {
      // A space at the edge becomes the break itself.
      rows.push(close(row, open))
      row = open
      used = 0
      space = undefined
      i += 1
      continue
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
    i += char.length
  }
  rows.push(row)
  return rows
}

/** Cuts to at most `width` columns with an ellipsis (plain text). */
export const clipText = (text: string, width: number): string => {
  if (textWidth(text) <= width) return text
  let out = ""
  let used = 0
  for (const char of stripAnsi(text)) {
    const w = charWidth(char)
    if (used + w > width - 1) break
    out += char
    used += w
  }
  return `${out}…`
}
