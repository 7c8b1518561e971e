/**
 * The terminal this UI draws on: raw keyboard input, bracketed paste, size and resize, and the
 * promise that the terminal is given back as found (raw mode off, cursor visible, paste mode off)
 * however the process ends: normal exit, SIGTERM (via the runtime's interruption), or a crash.
 */
import type * as tty from "node:tty"
import { writeStderr, writeStdout } from "../terminal/output.ts"

export interface Terminal {
  /** Whether the UI stream is a terminal (else: plain text, nothing is redrawn). */
  readonly interactive: boolean
  readonly write: (text: string) => void
  /** Where the transcript also goes as plain text when stdout is not a terminal (a pipe, a file). */
  readonly transcript: ((text: string) => void) | undefined
  readonly columns: () => number
  readonly rows: () => number
  readonly onResize: (listener: () => void) => void
  readonly onInput: (listener: (data: string) => void) => void
  /** Stops delivering input to the listener (a dialog takes the keyboard). */
  readonly pauseInput: () => void
  readonly resumeInput: () => void
  /** The stream dialogs draw on. */
  readonly stream: tty.WriteStream | NodeJS.WriteStream
  readonly restore: () => void
}

const bracketedPasteOn = "\x1b[?2004h"
const bracketedPasteOff = "\x1b[?2004l"
/**
 * The kitty keyboard protocol's "disambiguate" level, where a terminal has it (kitty, WezTerm,
 * Ghostty, foot, iTerm2…): Shift+Enter then differs from Enter. Others ignore the request.
 */
const keyboardProtocolOn = "\x1b[>1u"
const keyboardProtocolOff = "\x1b[<u"

export const openTerminal = (): Terminal => {
  const stdoutTty = process.stdout.isTTY === true
  const stream = stdoutTty ? process.stdout : process.stderr
  const interactive = stream.isTTY === true
  const write = stdoutTty ? writeStdout : writeStderr
  const stdin = process.stdin
  let listener: ((data: string) => void) | undefined
  let paused = false
  const onData = (data: Buffer | string) => {
    if (!paused) listener?.(typeof data === "string" ? data : data.toString("utf8"))
  }
  const enter = () => {
    if (stdin.isTTY) stdin.setRawMode(true)
    stdin.resume()
    if (interactive) write(`${bracketedPasteOn}${keyboardProtocolOn}`)
  }
  let restored = false
  const restore = () => {
    if (restored) return
    restored = true
    stdin.off("data", onData)
    if (stdin.isTTY) stdin.setRawMode(false)
    stdin.pause()
    if (interactive) write(`${bracketedPasteOff}${keyboardProtocolOff}\x1b[?25h`)
  }
  // The last line of defence: whatever ends the process, the terminal is usable afterwards.
  process.once("exit", restore)
  enter()
  stdin.on("data", onData)
  return {
    interactive,
    write,
    transcript: stdoutTty ? undefined : writeStdout,
    columns: () => Math.max(20, stream.columns ?? 80),
    rows: () => Math.max(5, stream.rows ?? 24),
    onResize: (resize) => {
      stream.on("resize", resize)
    },
    onInput: (next) => {
      listener = next
    },
    pauseInput: () => {
      paused = true
      // Dialogs read keys through node:readline, which knows neither protocol.
      if (interactive) write(`${bracketedPasteOff}${keyboardProtocolOff}`)
    },
    resumeInput: () => {
      paused = false
      enter()
    },
    stream,
    restore
  }
}
