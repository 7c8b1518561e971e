// Run with Bun: spawns config.json's stdio servers as Crystal's start does (src/mcp/early-servers.ts),
// says so, then idles with no session and no runtime signal handlers, as Crystal's first
// milliseconds do, until a signal ends it.
import { startEarlyServers } from "../../../src/mcp/early-servers.ts"

startEarlyServers(process.env, process.cwd())
process.stdout.write("spawned\n")
setInterval(() => {}, 1000)
