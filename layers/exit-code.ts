/**
 * How the process ends, decided in one place (README "Exit codes"): 0 answered, 1 the turn or the
 * command failed, 2 bad flags, configuration or credentials (the operator's to fix), 3 the session is
 * open in another crystal process (try again once it is closed there), 130/143 interrupted by
 * SIGINT/SIGTERM.
 */
export const ExitCode = { ok: 0, failure: 1, usage: 2, busy: 3, interrupted: 130, terminated: 143 } as const

/** The tags of errors that are the operator's input to fix. */
const usageErrors: ReadonlySet<string> = new Set(["ConfigError", "NoModelConfigured", "DirectoryError"])

export const exitCode = (error: { readonly _tag: string }): number =>
  usageErrors.has(error._tag) ? ExitCode.usage : error._tag === "SessionLocked" ? ExitCode.busy : ExitCode.failure

export const signalExitCode = (signal: NodeJS.Signals): number => (signal === "SIGTERM" ? ExitCode.terminated : ExitCode.interrupted)
