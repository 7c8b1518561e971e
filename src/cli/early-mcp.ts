/**
 * Spawns config.json's stdio MCP servers (src/mcp/early-servers.ts) as a side effect of being
 * evaluated, for a command line that starts a session in the current directory (`crystal`,
 * `crystal run` without --resume/--continue: a resumed session's workspace may be elsewhere).
 * src/cli/entry.ts imports it before anything else, so it runs before Effect and the rest of the
 * CLI evaluate (~40 ms in the binary) while staying in the start-up chunk: a call from
 * src/main.ts would have split that chunk in seven (test/unit/startup-bundle.test.ts).
 */
import { startEarlyServers } from "../mcp/early-servers.ts"
import { parseFast } from "./fast-args.ts"

const invocation = parseFast(process.argv.slice(2))
if (invocation !== undefined && invocation._tag !== "Space" && invocation.flags.resume === undefined && !invocation.flags.continue) {
  startEarlyServers(process.env, process.cwd())
}
