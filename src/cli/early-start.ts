/**
 * What starts before the runtime, for a command line that starts a session in the current
 * directory (`crystal`, `crystal run`, `crystal space` without --resume/--continue): config.json's
 * stdio MCP servers are spawned (src/mcp/early-servers.ts; not for `space`, whose workspace is
 * elsewhere) and the way to the model's provider is warmed (./early-connect.ts: its connection,
 * or its DNS lookup). Both happen as a side effect of this module being evaluated: src/main.ts
 * imports it just before src/cli/entry.ts, and nothing it imports loads Effect, so it runs before
 * Effect and the rest of the CLI evaluate (~20 ms in the binary, docs/startup.md); imported by
 * entry.ts it ran only after the chunk Effect shares with the other commands
 * (test/unit/startup-bundle.test.ts).
 */
import { closingSignals, signalExitCode } from "../../layers/exit-code.ts"
import { readRawConfig } from "../config/raw-config.ts"
import { startEarlyServers } from "../mcp/early-servers.ts"
import { connectEarly } from "./early-connect.ts"
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
if (invocation !== undefined && invocation.flags.resume === undefined && !invocation.flags.continue) {
  const config = readRawConfig(process.env)
  if (invocation._tag !== "Space" && startEarlyServers(process.env, process.cwd(), config)) exitOnSignalMeanwhile()
  connectEarly(invocation.flags, process.env, config)
}
