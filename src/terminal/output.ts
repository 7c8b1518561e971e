/**
 * Synchronous writes to stdout/stderr. process.stdout in a compiled Bun binary costs ~15 ms to
 * initialise (it builds a node stream); a plain fd write costs nothing and keeps order between
 * the two streams.
 */
import * as fs from "node:fs"
import { visible } from "./inert.ts"

const pause = new Int32Array(new SharedArrayBuffer(4))

const writeAll = (fd: number, text: string): void => {
  let buffer = Buffer.from(text, "utf8")
  while (buffer.length > 0) {
    try {
      const written = fs.writeSync(fd, buffer)
      buffer = buffer.subarray(written)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // A non-blocking pipe whose reader is behind: wait a moment and try again.
      if (code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 2)
        continue
      }
      // The reader went away (e.g. `crystal run ... | head`): nothing left to say to it.
      if (code === "EPIPE") return
      throw error
    }
  }
}

export const writeStdout = (text: string): void => writeAll(1, text)
export const writeStderr = (text: string): void => writeAll(2, text)

/**
 * Text that may hold what came from outside (a session title the model wrote, a server's tool
 * names and messages, a plugin's notes, a file name), made inert (inert.ts) and written: the
 * command-line listings and one-line failures. Not for output that must stay exact (JSON, an export).
 */
export const writeInertStdout = (text: string): void => writeStdout(visible(text))
export const writeInertStderr = (text: string): void => writeStderr(visible(text))
