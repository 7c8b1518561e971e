/**
 * Which variable assignments leave a read-only command read-only. Fail closed: a variable handed
 * to a program (`X=1 cmd`, `export X`, `declare -x`, `env X=1`) must be on a short allowlist of
 * names no program reads to find code or files to run or write; a plain shell assignment (`x=1`)
 * is fine when the variable is not exported (not in the environment) and bash itself does not
 * act on it.
 */

/** Variables that only change language, time zone, colours or layout. */
const INERT = new Set(
  `
  LC_ALL LC_CTYPE LC_COLLATE LC_MESSAGES LC_NUMERIC LC_TIME LC_MONETARY LANG LANGUAGE TZ TERM COLUMNS LINES
  NO_COLOR FORCE_COLOR CLICOLOR CLICOLOR_FORCE COLORTERM GREP_COLOR GREP_COLORS LS_COLORS TIME_STYLE QUOTING_STYLE
  POSIXLY_CORRECT BLOCK_SIZE BLOCKSIZE DU_BLOCK_SIZE DF_BLOCK_SIZE LS_BLOCK_SIZE GIT_OPTIONAL_LOCKS GIT_TERMINAL_PROMPT
  `
    .trim()
    .split(/\s+/)
)

/** Pager variables are fine when they name no program beyond `cat`. */
const PAGERS = new Set(["PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "BAT_PAGER"])

/** Variables bash itself acts on (search paths, start-up files, word splitting, temp files, prompts). */
const BASH_ACTS_ON = new Set(
  `
  PATH IFS PS0 PS1 PS2 PS3 PS4 BASH_ENV ENV SHELLOPTS BASHOPTS CDPATH GLOBIGNORE HOME HISTFILE HISTFILESIZE HISTSIZE
  HISTCONTROL HISTIGNORE HISTTIMEFORMAT TMPDIR EXECIGNORE BASH_LOADABLES_PATH BASH_COMPAT FUNCNEST BASH_XTRACEFD
  INPUTRC HOSTFILE MAIL MAILPATH MAILCHECK PROMPT_COMMAND BASH_ARGV0 TIMEFORMAT
  `
    .trim()
    .split(/\s+/)
)

/** A variable exported to the programs of the line: allowed only from the allowlist. */
export const exportAllowed = (name: string, value: string | undefined): boolean =>
  INERT.has(name) || (PAGERS.has(name) && value !== undefined && ["", "cat"].includes(value.trim()))

/**
 * A plain shell assignment: allowed when exporting it would be, or when the variable is not in
 * the environment (so no program sees it) and bash does not act on it.
 */
export const shellAssignmentAllowed = (name: string, value: string | undefined, environment: Readonly<Record<string, string | undefined>>): boolean =>
  exportAllowed(name, value) || (!BASH_ACTS_ON.has(name) && environment[name] === undefined)
