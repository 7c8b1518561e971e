// Run with Bun as `bun early-start-child.ts run hi`: Crystal's early MCP start (src/cli/early-start.ts,
// which reads these arguments) spawns config.json's stdio servers, then the child says so and
// idles with no session and no runtime, as Crystal's first milliseconds do, until a signal ends it.
import "../../../src/cli/early-start.ts"

process.stdout.write("spawned\n")
setInterval(() => {}, 1000)
