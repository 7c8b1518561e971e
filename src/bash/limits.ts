/**
 * The shell tools' limits and defaults, apart from the code that spawns anything: the tool
 * definitions offered at start-up read them without loading node:child_process.
 */
import * as fs from "node:fs"

export const DEFAULT_BASH_TIMEOUT_SECONDS = 120
export const DEFAULT_BACKGROUND_TIMEOUT_SECONDS = 10800
export const DEFAULT_MAX_TASKS = 32
export const DEFAULT_LOG_BUFFER_BYTES = 1024 * 1024
export const DEFAULT_KEPT_FINISHED_LOGS = 64
export const DEFAULT_LOG_READ_BYTES = 16 * 1024
/** SIGTERM → SIGKILL delay. */
export const DEFAULT_GRACE_MS = 2000
/** How long output is still read after the shell exits (a background child may hold the pipes). */
export const DEFAULT_DRAIN_MS = 200
/** How long to wait for a killed shell's output to settle: the drain, plus a margin. */
export const drainWaitMs = (drainMs: number | undefined): number => (drainMs ?? DEFAULT_DRAIN_MS) + 100

/**
 * `backgroundBashTimeoutSeconds` as config.json holds it → seconds, or null for no timer:
 * omitted = 10800, `null` or `"unlimited"` = none.
 */
export const backgroundTimeoutSeconds = (setting: number | null | "unlimited" | undefined): number | null =>
  setting === undefined ? DEFAULT_BACKGROUND_TIMEOUT_SECONDS : setting === null || setting === "unlimited" ? null : setting

let shellPath: string | undefined

/** `/bin/bash` when it is there, otherwise `/bin/sh`; looked up once. */
export const defaultShell = (): string => {
  if (shellPath === undefined) {
    try {
      fs.accessSync("/bin/bash", fs.constants.X_OK)
      shellPath = "/bin/bash"
    } catch {
      shellPath = "/bin/sh"
    }
  }
  return shellPath
}
