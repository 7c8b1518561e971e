/**
 * Text from the model, its tool arguments and command output, made inert before it reaches the
 * terminal: control characters other than newline and tab are drawn as visible symbols (ESC as ␛,
 * a carriage return as ␍), so nothing the model writes can move the cursor, erase rows or hide part
 * of what the operator is asked to approve. CRLF is a newline. `crystal run` and the interactive
 * UI both make text inert here: whole strings with `visible`, streamed tokens through `InertStream`.
 */
const controls = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g

const symbolFor = (char: string): string => {
  const code = char.charCodeAt(0)
  if (code < 0x20) return String.fromCharCode(0x2400 + code)
  return code === 0x7f ? "␡" : `\\x${code.toString(16)}`
}

export const visible = (text: string): string => text.replace(/\r\n/g, "\n").replace(controls, symbolFor)

/**
 * The style sequences Crystal itself writes: picocolors' opening and closing codes for the styles
 * of src/terminal/colors.ts (bold, dim, red, green, yellow, magenta, cyan) and the reset the
 * TUI's row wrapping adds (src/tui/width.ts). Nothing else: no cursor movement, no erase, no OSC,
 * no style that could hide text (conceal, or a colour on a background of the same colour).
 */
const ownStyle = /(\x1b\[(?:0|1|2|22|31|32|33|35|36|39)m)/
const ownStyles = new RegExp(ownStyle.source, "g")
const anyControl = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/

/**
 * A line Crystal drew, made inert whatever went into it: its own styles stay, every other control
 * character is drawn as a symbol. The TUI's one choke point (src/tui/screen.ts): text from outside
 * that reached a line without passing `visible` still cannot move the cursor, erase, set the
 * title or write the clipboard; at worst it changes a colour.
 */
export const inertLine = (line: string): string => {
  if (!anyControl.test(line.replace(ownStyles, ""))) return line
  return line
    .split(ownStyle)
    .map((part, index) => (index % 2 === 1 ? part : visible(part)))
    .join("")
}

/**
 * JSON text with nothing a terminal obeys: JSON.stringify escapes C0 controls (ESC included) but
 * writes DEL and the C1 controls (U+0080–U+009F, CSI among them) as they are; here they are
 * `\u` escapes too. The same value to any JSON reader.
 */
export const inertJson = (value: unknown, space?: number): string =>
  (JSON.stringify(value, null, space) ?? "null").replace(/[\x7f-\x9f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** The same for every string inside a parsed JSON value (tool arguments). */
export const visibleValue = (value: unknown): unknown => {
  if (typeof value === "string") return visible(value)
  if (Array.isArray(value)) return value.map(visibleValue)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [visible(key), visibleValue(inner)]))
  }
  return value
}

/**
 * Streamed text made inert token by token, as `visible` makes the whole: a CR ending one token
 * waits for the next, so a CRLF split across two tokens is a line end, not ␍.
 */
export class InertStream {
  private heldCR = false

  push(token: string): string {
    const joined = this.heldCR ? `\r${token}` : token
    this.heldCR = joined.endsWith("\r")
    return visible(this.heldCR ? joined.slice(0, -1) : joined)
  }

  /** The text has ended: a CR still held ended its last line, so it is dropped. */
  end(): void {
    this.heldCR = false
  }
}
