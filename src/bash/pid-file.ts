/**
 * This crystal's pid file, `<home>/run/<pid>.json` (containment.ts has the why): written with the
 * first process Crystal spawns, in the home that spawn names, removed on the way out, left behind
 * by a SIGKILL for the next crystal to reap. One per process, so what it names (`pidFile`) is the
 * process's, not a session's. No Effect here: config.json's MCP servers are spawned, and the file
 * written, before the rest of Crystal loads (src/mcp/early-servers.ts).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { instancePrefix, ownStart } from "./process-table.ts"

let pidFile: string | undefined

/** Where a crystal keeps its pid file and finds those of crystals that died: `<home>/run`. */
export const runDirectory = (home: string): string => path.join(home, "run")

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

/** Writes this process's pid file in `runDir`, unless it wrote one already (the first home named stays). */
export const writePidFile = (runDir: string): void => {
  if (pidFile !== undefined) return
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

/** The pid file this process wrote, if it did. */
export const ownPidFile = (): string | undefined => pidFile
