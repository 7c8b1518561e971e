/**
 * Spawns config.json's stdio MCP servers (src/mcp/early-servers.ts) as a side effect of being
 * evaluated, for a command line that starts a session in the current directory (`crystal`,
 * `crystal run` without --resume/--continue: a resumed session's workspace may be elsewhere).
 * src/main.ts imports it just before src/cli/entry.ts, and nothing it imports loads Effect, so it
 * runs before Effect and the rest of the CLI evaluate (~40 ms in the binary): imported by
 * entry.ts it ran only after the chunk Effect shares with the other commands
 * (test/unit/startup-bundle.test.ts).
 */
import { startEarlyServers } from "../mcp/early-servers.ts"
import { parseFast } from "./fast-args.ts"

const invocation = parseFast(process.argv.slice(2))
if (invocation !== undefined && invocation._tag !== "Space" && invocation.flags.resume === undefined && !invocation.flags.continue) {
  startEarlyServers(process.env, process.cwd())
}
