/**
 * Raw terminal input → key events. Pure: the caller feeds the bytes of each read and keeps the
 * returned `rest` (an escape sequence or a bracketed paste cut by the read boundary) for the next.
 */

export type KeyName =
  | "enter"
  | "newline"
  | "tab"
  | "backtab"
  | "backspace"
  | "delete"
  | "escape"
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  | "pageup"
  | "pagedown"

export type Key =
  /** Printable text typed at the keyboard (one or more characters of one read). */
  | { readonly type: "text"; readonly text: string }
  /** A bracketed paste: inserted as a whole, never submitted by itself. */
  | { readonly type: "paste"; readonly text: string }
  | { readonly type: "key"; readonly name: KeyName; readonly ctrl: boolean; readonly alt: boolean; readonly shift: boolean }
  /** Ctrl+letter, lower case ("c" for Ctrl+C). */
  | { readonly type: "ctrl"; readonly letter: string }
  /** Alt+character (ESC prefix), e.g. Alt+B. */
  | { readonly type: "alt"; readonly char: string }

export interface Decoded {
  readonly keys: ReadonlyArray<Key>
  /** Bytes to prepend to the next read. */
  readonly rest: string
}

const PASTE_START = "\x1b[200~"
const PASTE_END = "\x1b[201~"

const key = (name: KeyName, mods: { ctrl?: boolean; alt?: boolean; shift?: boolean } = {}): Key => ({
  type: "key",
  name,
  ctrl: mods.ctrl ?? false,
  alt: mods.alt ?? false,
  shift: mods.shift ?? false
})

/** xterm modifier parameter: 1 + (shift 1 | alt 2 | ctrl 4). */
const modifiers = (param: number | undefined) => {
  const bits = (param ?? 1) - 1
  return { shift: (bits & 1) !== 0, alt: (bits & 2) !== 0, ctrl: (bits & 4) !== 0 }
}

const csiFinals: Readonly<Record<string, KeyName>> = { A: "up", B: "down", C: "right", D: "left", H: "home", F: "end", Z: "backtab" }
const tildeKeys: Readonly<Record<number, KeyName>> = { 1: "home", 2: "home", 3: "delete", 4: "end", 5: "pageup", 6: "pagedown", 7: "home", 8: "end" }

/** A key from a code point (kitty CSI-u, xterm modifyOtherKeys). */
const fromCodePoint = (code: number, mods: { shift: boolean; alt: boolean; ctrl: boolean }): Key | undefined => {
  if (code === 13) return key("enter", mods)
  if (code === 9) return key(mods.shift ? "backtab" : "tab", mods)
  if (code === 127 || code === 8) return key("backspace", mods)
  if (code === 27) return key("escape", mods)
  const char = String.fromCodePoint(code)
  if (mods.ctrl && /^[a-z]$/i.test(char)) return { type: "ctrl", letter: char.toLowerCase() }
  if (mods.alt) return { type: "alt", char }
  return { type: "text", text: mods.shift ? char.toUpperCase() : char }
}

/** Decodes one CSI sequence body (after ESC [); undefined when unknown (it is then dropped). */
const decodeCsi = (params: string, final: string): Key | undefined => {
  const parts = params.split(";").map((part) => (part === "" ? undefined : Number(part)))
  if (final === "u") {
    const code = parts[0]
    return code === undefined ? undefined : fromCodePoint(code, modifiers(parts[1]))
  }
  if (final === "~") {
    const first = parts[0]
    // xterm modifyOtherKeys: ESC [ 27 ; mods ; code ~
    if (first === 27 && parts[2] !== undefined) return fromCodePoint(parts[2], modifiers(parts[1]))
    const name = first === undefined ? undefined : tildeKeys[first]
    return name === undefined ? undefined : key(name, modifiers(parts[1]))
  }
  const name = csiFinals[final]
  if (name === undefined) return undefined
  if (name === "backtab") return key("backtab", { shift: true })
  return key(name, modifiers(parts[1]))
}

const controlKey = (char: string): Key | undefined => {
  const code = char.charCodeAt(0)
  if (char === "\r") return key("enter")
  if (char === "\n") return key("newline")
  if (char === "\t") return key("tab")
  if (char === "\x7f" || char === "\b") return key("backspace")
  if (code >= 1 && code <= 26) return { type: "ctrl", letter: String.fromCharCode(code + 96) }
  return undefined
}

export const decodeKeys = (input: string): Decoded => {
  const keys: Array<Key> = []
  let text = ""
  const flushText = () => {
    if (text !== "") keys.push({ type: "text", text })
    text = ""
  }
  const push = (decoded: Key | undefined) => {
    flushText()
    if (decoded !== undefined) keys.push(decoded)
  }
  let i = 0
  while (i < input.length) {
    const char = input[i] as string
    if (input.startsWith(PASTE_START, i)) {
      const end = input.indexOf(PASTE_END, i + PASTE_START.length)
      if (end < 0) {
        flushText()
        return { keys, rest: input.slice(i) }
      }
      push({ type: "paste", text: input.slice(i + PASTE_START.length, end).replace(/\r\n?/g, "\n") })
      i = end + PASTE_END.length
      continue
    }
    if (char === "\x1b") {
      const next = input[i + 1]
      // A lone ESC at the end of a read is the Escape key: terminals send sequences in one write.
      if (next === undefined) {
        push(key("escape"))
        i++
        continue
      }
      if (next === "[") {
        const match = /^\x1b\[([0-9;?]*)([\x40-\x7e])/.exec(input.slice(i, i + 32))
        if (match === null) {
          if (/^\x1b\[[0-9;?]*$/.test(input.slice(i))) {
            flushText()
            return { keys, rest: input.slice(i) }
          }
          push(key("escape"))
          i++
          continue
        }
        push(decodeCsi(match[1] ?? "", match[2] ?? ""))
        i += match[0].length
        continue
      }
      if (next === "O") {
        const final = input[i + 2]
        if (final === undefined) {
          flushText()
          return { keys, rest: input.slice(i) }
        }
        const name = csiFinals[final]
        push(name === undefined ? undefined : key(name))
        i += 3
        continue
      }
      // ESC + key = Alt + key.
      if (next === "\r") push(key("enter", { alt: true }))
      else if (next === "\x7f" || next === "\b") push(key("backspace", { alt: true }))
      else if (next === "\x1b") push(key("escape"))
      else push({ type: "alt", char: next })
      i += next === "\x1b" ? 1 : 2
      continue
    }
    const control = controlKey(char)
    if (control !== undefined) {
      push(control)
      i++
      continue
    }
    if (char.charCodeAt(0) < 32) {
      i++
      continue
    }
    text += char
    i++
  }
  flushText()
  return { keys, rest: "" }
}
