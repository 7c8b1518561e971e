/** A real pseudo-terminal through tmux: start a command, type into it, read the screen. */
import { execFileSync, spawnSync } from "node:child_process"

export const tmuxAvailable = (): boolean => spawnSync("tmux", ["-V"]).status === 0

export interface Terminal {
  readonly type: (text: string) => void
  /** tmux key names: "Enter", "C-c", "C-d", ... */
  readonly press: (...keys: ReadonlyArray<string>) => void
  readonly screen: () => string
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<string>
  /** Pastes a tmux buffer as a terminal would (bracketed when the application asked for it). */
  readonly pasteBuffer: (buffer: string) => void
  readonly resize: (columns: number, rows?: number) => void
  /** The pane's title, as the program in it set it (OSC 0 or 2) or tmux's default. */
  readonly title: () => string
  /** Pid of the command (the child of the pane's shell). */
  readonly commandPid: () => number
  readonly close: () => void
}

let counter = 0

/**
 * tmux's server exits when its last session closes; a session started in that instant fails with
 * "server exited unexpectedly". Started again, it gets a new server.
 */
const startSession = (args: ReadonlyArray<string>): void => {
  for (let attempt = 1; ; attempt++) {
    const run = spawnSync("tmux", args, { encoding: "utf8" })
    if (run.status === 0) return
    if (attempt === 3 || !/server exited unexpectedly|no server running|lost server/.test(run.stderr)) {
      throw new Error(`tmux ${args.slice(0, 3).join(" ")} failed: ${run.stderr.trim()}`)
    }
    spawnSync("sleep", ["0.2"])
  }
}

const shellQuote = (value: string): string => `'${value.replaceAll("'", "'\\''")}'`

export const openTerminal = (command: ReadonlyArray<string>, options: { readonly cwd: string; readonly env: Record<string, string> }): Terminal => {
  const name = `crystal-test-${process.pid}-${counter++}`
  const exports = Object.entries(options.env).map(([key, value]) => `${key}=${shellQuote(value)}`).join(" ")
  // The shell stays after the command so its exit status and the terminal state can be inspected.
  const script = `cd ${shellQuote(options.cwd)} && env ${exports} ${command.map(shellQuote).join(" ")}; echo "EXIT=$?"; echo "STTY: $(stty -a | grep -oE -- '(^| )-?(icanon|echo|isig)\\b' | tr -d ' ' | tr '\\n' ' ')"; sleep 60`
  startSession(["new-session", "-d", "-s", name, "-x", "100", "-y", "40", "bash", "-c", script])
  const screen = () => execFileSync("tmux", ["capture-pane", "-t", name, "-p"], { encoding: "utf8" })
  return {
    type: (text) => execFileSync("tmux", ["send-keys", "-t", name, "-l", text]),
    press: (...keys) => execFileSync("tmux", ["send-keys", "-t", name, ...keys]),
    screen,
    waitFor: async (pattern, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const text = screen()
        if (pattern.test(text)) return text
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} on the screen:\n${text}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    pasteBuffer: (buffer) => execFileSync("tmux", ["paste-buffer", "-p", "-d", "-b", buffer, "-t", name]),
    resize: (columns, rows = 40) => execFileSync("tmux", ["resize-window", "-t", name, "-x", String(columns), "-y", String(rows)]),
    title: () => execFileSync("tmux", ["display-message", "-p", "-t", name, "#{pane_title}"], { encoding: "utf8" }).trim(),
    commandPid: () => {
      const shell = execFileSync("tmux", ["display-message", "-p", "-t", name, "#{pane_pid}"], { encoding: "utf8" }).trim()
      return Number(execFileSync("ps", ["-o", "pid=", "--ppid", shell], { encoding: "utf8" }).trim().split(/\s+/)[0])
    },
    close: () => {
      spawnSync("tmux", ["kill-session", "-t", name])
    }
  }
}
