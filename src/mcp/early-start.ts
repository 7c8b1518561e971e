/**
 * Spawns config.json's stdio MCP servers (early-servers.ts) as a side effect of being evaluated.
 * src/cli/entry.ts imports it before anything else, so it runs before Effect and the rest of the
 * CLI evaluate (~40 ms in the binary) while staying in the start-up chunk: a call from
 * src/main.ts would have split that chunk in seven (test/unit/startup-bundle.test.ts).
 */
import { startEarlyServers } from "./early-servers.ts"

startEarlyServers(process.argv.slice(2), process.env, process.cwd())
