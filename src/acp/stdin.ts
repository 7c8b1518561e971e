/**
 * Standard input read with plain fs reads: building process.stdin (or a web stream before the
 * first answer) costs milliseconds in the compiled binary, and an editor waits for that answer.
 */
import * as fs from "node:fs"

const chunkBytes = 64 * 1024

/** The next chunk of stdin, or undefined at its end (or on an error, which ends it too). */
export const readStdin = (): Promise<Uint8Array | undefined> =>
  new Promise((resolve) => {
    const attempt = () =>
      fs.read(0, Buffer.alloc(chunkBytes), 0, chunkBytes, null, (error, bytesRead, buffer) => {
        // A non-blocking pipe with nothing in it yet: try again in a moment.
        if (error?.code === "EAGAIN") return void setTimeout(attempt, 2)
        resolve(error !== null || bytesRead === 0 ? undefined : buffer.subarray(0, bytesRead))
      })
    attempt()
  })

/**
 * The next chunk of stdin, waiting in this thread: for the first message only, when there is
 * nothing else to do until it comes. Undefined at the end; a non-blocking stdin falls back to readStdin.
 */
export const readStdinNow = (): Promise<Uint8Array | undefined> => {
  const buffer = Buffer.alloc(chunkBytes)
  try {
    const bytesRead = fs.readSync(0, buffer, 0, chunkBytes, null)
    return Promise.resolve(bytesRead === 0 ? undefined : buffer.subarray(0, bytesRead))
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EAGAIN" ? readStdin() : Promise.resolve(undefined)
  }
}

/** Stdin as a web stream, after `already` (chunks read before it was made). */
export const stdinStream = (already: ReadonlyArray<Uint8Array> = [], ended = false): ReadableStream<Uint8Array> =>
  new ReadableStream<Uint8Array>({
    start: (controller) => {
      for (const chunk of already) controller.enqueue(chunk)
      if (ended) controller.close()
    },
    pull: async (controller) => {
      if (ended) return
      const chunk = await readStdin()
      if (chunk === undefined) controller.close()
      else controller.enqueue(chunk)
    }
  })
