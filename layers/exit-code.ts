/**
 * How the process ends, decided in one place (README "Exit codes"): 0 answered, 1 the turn or the
 * command failed, 2 bad flags, configuration, credentials or `--image` files (the operator's to fix), 3 the session is
 * open in another crystal process (try again once it is closed there), 4 the final answer did not match
 * `--output-schema` after one retry (the errors are on stderr, or in the JSON error event), 5 `crystal rewind`
 * found files changed outside Crystal and changed nothing (run it again with --yes), 130/143/129/131 interrupted
 * by SIGINT/SIGTERM/SIGHUP (the terminal closed)/SIGQUIT: 128 + the signal's number, as a shell
 * reports a death by that signal (SIGQUIT dumps no core here: the session is closed cleanly).
 */
export const ExitCode = { ok: 0, failure: 1, usage: 2, busy: 3, invalidAnswer: 4, unconfirmed: 5, interrupted: 130, terminated: 143, hungUp: 129, quit: 131 } as const

/** The tags of errors that are the operator's input to fix. */
const usageErrors: ReadonlySet<string> = new Set(["ConfigError", "NoModelConfigured", "DirectoryError", "ImageRefused", "UnsupportedImage", "ImageTooLarge"])

export const exitCode = (error: { readonly _tag: string }): number =>
  usageErrors.has(error._tag) ? ExitCode.usage : error._tag === "SessionLocked" ? ExitCode.busy : ExitCode.failure

const signalCodes: Partial<Record<NodeJS.Signals, number>> = { SIGTERM: ExitCode.terminated, SIGHUP: ExitCode.hungUp, SIGQUIT: ExitCode.quit }

export const signalExitCode = (signal: NodeJS.Signals): number => signalCodes[signal] ?? ExitCode.interrupted

/** The signals that close the session like SIGTERM does (layers/runtime.ts). */
export const closingSignals = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const
