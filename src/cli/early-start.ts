/**
 * Spawns config.json's stdio MCP servers (src/mcp/early-servers.ts) as a side effect of being
 * evaluated, for a command line that starts a session in the current directory (`crystal`,
 * `crystal run` without --resume/--continue: a resumed session's workspace may be elsewhere).
 * src/main.ts imports it just before src/cli/entry.ts, and nothing it imports loads Effect, so it
 * runs before Effect and the rest of the CLI evaluate (~40 ms in the binary): imported by
 * entry.ts it ran only after the chunk Effect shares with the other commands
 * (test/unit/startup-bundle.test.ts).
 */
import { closingSignals, signalExitCode } from "../../layers/exit-code.ts"
import { startEarlyServers } from "../mcp/early-servers.ts"
import { parseFast } from "./fast-args.ts"

/**
 * Until the runtime's own handlers are in place (layers/runtime.ts), a Ctrl+C, SIGTERM, SIGHUP or
 * SIGQUIT would end Crystal without its exit hook and leave the servers (each in a session of its
 * own, out of the terminal's reach) running: exit as the runtime would, through the hook. Once a
 * handler of the runtime's is installed, this one does nothing.
 */
const exitOnSignalMeanwhile = (): void => {
  for (const signal of closingSignals) {
    process.on(signal, () => {
      if (process.listenerCount(signal) === 1) process.exit(signalExitCode(signal))
    })
  }
}

const invocation = parseFast(process.argv.slice(2))
if (invocation !== undefined && invocation._tag !== "Space" && invocation.flags.resume === undefined && !invocation.flags.continue) {
  if (startEarlyServers(process.env, process.cwd())) exitOnSignalMeanwhile()
}
