/**
 * Containment of every process a session starts (docs/containment.md has the why):
 *   - each spawned shell carries CRYSTAL_CONTAIN=<crystal pid>.<its start>.<n> in its environment,
 *     inherited by everything it starts, so process-tree.ts finds escapees (setsid -f, double
 *     fork, setpgrp) in /proc/PID/environ;
 *   - in the compiled binary on Linux, crystal makes itself a child subreaper (prctl via bun:ffi),
 *     so an orphan becomes crystal's child instead of init's: even one that cleared its
 *     environment is still a descendant that the exit hook kills;
 *   - a pid file under <home>/run names this crystal (pid and start time) while it has processes;
 *     a crystal killed with SIGKILL leaves it behind, and the next crystal started in that home
 *     kills the processes carrying the dead one's tag that started after it, then removes the file.
 * Nothing here runs at start-up: the subreaper and the pid file come with the first spawn, and the
 * reaping of a dead crystal's processes waits for a timer (or the first spawn, or the exit), so it
 * is never on the way of the first request.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openLibc } from "../files/libc.ts"
import { ownPidFile, runDirectory, writePidFile, type PidRecord } from "./pid-file.ts"
import { instancePrefix, markSubreaper, processStart, taggedProcesses } from "./process-tree.ts"

const PR_SET_CHILD_SUBREAPER = 36

/** Makes this process a child subreaper when it runs in Bun on Linux; false elsewhere or on failure. */
const becomeSubreaper = (): boolean => {
  if (process.platform !== "linux") return false
  // No bun:ffi (Node, a build without it): the environment tags alone contain the processes.
  const libc = openLibc({ prctl: { args: ["i32", "u64", "u64", "u64", "u64"], returns: "i32" } })
  return libc !== undefined && libc.symbols.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) === 0
}

const prepared = Effect.cached(
  Effect.sync(() => {
    if (becomeSubreaper()) markSubreaper()
  })
)

/**
 * Run before each spawn: the first one makes us a subreaper and writes the pid file in `home`'s
 * run directory (Crystal's home, which the session passes down to every spawn; undefined where no
 * session named one, or where the session's first spawn already wrote it). Later ones cost only
 * the cached check.
 */
export const prepareContainment = (home: string | undefined): Effect.Effect<void> =>
  Effect.flatten(prepared).pipe(
    Effect.zipRight(
      Effect.sync(() => {
        reapIfDue()
        if (home !== undefined) writePidFile(runDirectory(home))
      })
    )
  )

export { taggedEnvironment } from "./process-table.ts"

const parseRecord = (text: string): PidRecord | undefined => {
  try {
    const value = JSON.parse(text) as Partial<PidRecord>
    if (typeof value.pid !== "number" || typeof value.start !== "string" || typeof value.prefix !== "string") return undefined
    if (!/^\d+$/.test(value.start) || value.prefix !== instancePrefix(value.pid, value.start)) return undefined
    return { pid: value.pid, start: value.start, prefix: value.prefix }
  } catch {
    return undefined
  }
}

export interface ReapReport {
  /** Pid files of dead crystals handled (and removed). */
  readonly files: number
  /** Processes killed. */
  readonly killed: number
}

/**
 * Kills what crystals that died in this home (SIGKILL, a crash, a power cut) left running: for each
 * pid file whose crystal is gone (its pid dead, or alive with another start time: reused), every
 * living process carrying that crystal's tag and started after it. Then removes the file. A
 * crystal still running keeps its file and its processes. Synchronous; ~1 ms per dead crystal.
 */
export const reapOrphans = (dir: string): ReapReport => {
  let names: Array<string>
  try {
    names = fs.readdirSync(dir)
  } catch {
    return { files: 0, killed: 0 }
  }
  let files = 0
  let killed = 0
  for (const name of names) {
    if (!name.endsWith(".json")) continue
    const file = path.join(dir, name)
    if (file === ownPidFile()) continue
    let text: string
    try {
      text = fs.readFileSync(file, "utf8")
    } catch {
      continue
    }
    const record = parseRecord(text)
    if (record !== undefined && processStart(record.pid) === record.start) continue
    if (record !== undefined) {
      for (const pid of taggedProcesses(record.prefix, BigInt(record.start))) {
        try {
          process.kill(pid, "SIGKILL")
          killed++
        } catch {
          // Gone meanwhile, or not ours.
        }
      }
    }
    fs.rmSync(file, { force: true })
    files++
  }
  return { files, killed }
}

// Once per process, not per session: what dead crystals left in the home is reaped once.
let reapScheduled = false

/**
 * Schedules (once per process) the reaping of the processes crystals that died in `home` left
 * behind. The reaping waits for a timer so it never delays the first request; a first spawn that
 * comes sooner does it first, before anything of ours runs, and a process exiting sooner does it
 * on its way out.
 */
export const scheduleReaping = (home: string): void => {
  const dir = runDirectory(home)
  if (reapScheduled) return
  reapScheduled = true
  let done = false
  const reap = (): void => {
    if (done) return
    done = true
    reapOrphans(dir)
  }
  setTimeout(reap, 50).unref()
  // A run shorter than the timer reaps on its way out.
  process.on("exit", reap)
  reapBeforeSpawn = reap
}

let reapBeforeSpawn: (() => void) | undefined

/** The reaping, if still due: run by the first spawn. */
const reapIfDue = (): void => {
  const reap = reapBeforeSpawn
  reapBeforeSpawn = undefined
  reap?.()
}
