/**
 * This crystal's pid file, `<home>/run/<pid>.json` (containment.ts has the why): written with the
 * first process Crystal spawns, removed on the way out, left behind by a SIGKILL for the next
 * crystal to reap. No Effect here: config.json's MCP servers are spawned, and the file written,
 * before the rest of Crystal loads (src/mcp/early-servers.ts).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { instancePrefix, ownStart } from "./process-table.ts"

let runDir: string | undefined
let pidFile: string | undefined

/** Where this process keeps its pid file and finds those of crystals that died: `<home>/run`. */
const runDirectory = (home: string): string => path.join(home, "run")

export interface PidRecord {
  readonly pid: number
  readonly start: string
  readonly prefix: string
}

const removePidFile = (): void => {
  if (pidFile === undefined) return
  try {
    fs.rmSync(pidFile, { force: true })
  } catch {
    // Nothing to do at exit; the next start removes it once its processes are gone.
  }
  pidFile = undefined
}

export const writePidFile = (): void => {
  if (runDir === undefined || pidFile !== undefined) return
  const file = path.join(runDir, `${process.pid}.json`)
  try {
    fs.mkdirSync(runDir, { recursive: true, mode: 0o700 })
    const record: PidRecord = { pid: process.pid, start: ownStart, prefix: instancePrefix() }
    fs.writeFileSync(file, JSON.stringify(record), { mode: 0o600 })
    pidFile = file
    // Registered after process-tree.ts's hook (the first spawn tracks its leader later): the
    // processes are killed first, then the file goes.
    process.on("exit", removePidFile)
  } catch {
    // An unwritable home: containment still holds for every exit but SIGKILL.
  }
}

/** Names the home whose run directory holds the pid file (the first one named stays); gives that directory. */
export const useRunDirectory = (home: string): string => (runDir ??= runDirectory(home))

/** The pid file this process wrote, if it did. */
export const ownPidFile = (): string | undefined => pidFile
