/** Living processes seen from outside, through /proc: what a containment test counts. */
import * as fs from "node:fs/promises"

/**
 * Pids of living processes (zombies excluded) whose argv contains `marker`; with `named`, only
 * those whose argv[0] starts with it (not a shell whose command line still mentions it).
 */
export const processesWith = async (marker: string, named = false): Promise<Array<number>> => {
  const pids: Array<number> = []
  for (const name of await fs.readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue
    const cmdline = await fs.readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "")
    if (named ? !cmdline.startsWith(marker) : !cmdline.includes(marker)) continue
    const state = await fs.readFile(`/proc/${name}/stat`, "utf8").catch(() => "")
    // A zombie has exited; only an init that does not reap keeps it listed.
    if (state !== "" && !/\) [ZX] /.test(state)) pids.push(Number(name))
  }
  return pids
}

/** Polls until `count` holds for the processes named `marker…`, or `ms` passed; gives the last pids seen. */
export const waitForProcesses = async (marker: string, count: (n: number) => boolean, ms = 10_000): Promise<Array<number>> => {
  const deadline = Date.now() + ms
  for (;;) {
    const pids = await processesWith(marker, true)
    if (count(pids.length) || Date.now() >= deadline) return pids
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** SIGKILLs the processes with `marker` (a failed test's leftovers). */
export const killProcessesWith = async (marker: string): Promise<void> => {
  for (const pid of await processesWith(marker)) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // gone
    }
  }
}
