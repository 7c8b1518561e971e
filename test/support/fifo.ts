/**
 * A FIFO where a regular file is expected, and a guard that keeps a test that reads it by mistake
 * from hanging CI: after `seconds`, a writer opens the FIFO and closes it, so a blocked reader gets
 * end-of-file (an empty text the test then rejects) instead of waiting forever. A reader that never
 * opens the FIFO leaves the writer waiting; `stop` kills it.
 */
import { spawn, spawnSync } from "node:child_process"

export const makeFifo = (file: string): void => {
  const made = spawnSync("mkfifo", [file])
  if (made.status !== 0) throw new Error(`mkfifo ${file}: ${made.stderr.toString()}`)
}

export interface FifoGuard {
  readonly stop: () => void
}

export const unblockFifoAfter = (file: string, seconds: number): FifoGuard => {
  const writer = spawn("sh", ["-c", `sleep ${seconds}; : > "$1"`, "sh", file], { stdio: "ignore", detached: true })
  return {
    stop: () => {
      // Its own process group: the shell and its sleep go together.
      if (writer.exitCode === null && writer.pid !== undefined) process.kill(-writer.pid, "SIGKILL")
    }
  }
}
