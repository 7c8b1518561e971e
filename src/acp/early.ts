/**
 * `crystal acp`'s start-up path, taken by src/main.ts before anything else loads: the client's
 * first message is read, and when it is `initialize` it is answered at once (./initialize.ts),
 * while Effect, the engine and the ACP SDK load. The SDK then reads the same message from the
 * start and answers it too; that second answer is dropped (./agent.ts), so the client sees one.
 * Anything else is left to the SDK untouched. Imports nothing the other commands load, so their
 * start-up chunks stay as they are (test/unit/startup-bundle.test.ts).
 */
import * as fs from "node:fs"
import { handoff } from "./handoff.ts"
import { initializeResult } from "./initialize.ts"
import { readStdinNow, stdinStream } from "./stdin.ts"

const writeLine = (text: string): void => {
  let buffer = Buffer.from(`${text}\n`, "utf8")
  while (buffer.length > 0) {
    try {
      buffer = buffer.subarray(fs.writeSync(1, buffer))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return
    }
  }
}

/** The id of an `initialize` request with a usable protocolVersion, else undefined. */
const initializeId = (line: string): { readonly id: string | number; readonly requested: number } | undefined => {
  try {
    const message = JSON.parse(line) as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { protocolVersion?: unknown } }
    const requested = message.params?.protocolVersion
    if (message.jsonrpc !== "2.0" || message.method !== "initialize") return undefined
    if (typeof message.id !== "string" && typeof message.id !== "number") return undefined
    if (typeof requested !== "number" || !Number.isInteger(requested) || requested < 0 || requested > 65535) return undefined
    return { id: message.id, requested }
  } catch {
    return undefined
  }
}

export const start = async (version: string, load: () => void): Promise<void> => {
  const read: Array<Uint8Array> = []
  let text = ""
  let ended = false
  // Everything up to the first newline (or the end of input).
  while (!text.includes("\n")) {
    const chunk = await readStdinNow()
    if (chunk === undefined) {
      ended = true
      break
    }
    read.push(chunk)
    text += Buffer.from(chunk).toString("utf8")
  }
  const first = initializeId(text.split("\n")[0] ?? "")
  if (first !== undefined) {
    writeLine(JSON.stringify({ jsonrpc: "2.0", id: first.id, result: initializeResult(first.requested, version) }))
    handoff.answeredInitialize = first.id
  }
  handoff.input = stdinStream(read, ended)
  load()
}
