/**
 * Entry point. `--version` is answered before anything else is loaded (console.log: process.stdout
 * is slow to build in a compiled Bun binary); everything else is imported on demand.
 */
import pkg from "../package.json" with { type: "json" }

const argv = process.argv.slice(2)

if (argv.length === 1 && argv[0] === "--version") {
  console.log(pkg.version)
} else if (argv.length === 1 && argv[0] === "__sandbox-supervisor") {
  // Crystal itself, inside a session's OS sandbox (src/bash/sandbox-session.ts).
  void import("./bash/sandbox-supervisor.ts").then((supervisor) => supervisor.runSupervisor())
} else if (argv.length === 1 && argv[0] === "acp") {
  // An editor's agent: its initialize is answered while the rest loads (src/acp/early.ts).
  void import("./acp/early.ts").then((acp) => acp.start(pkg.version, () => void import("./cli/entry.ts").then((entry) => entry.main(argv, pkg.version))))
} else {
  // First, in a chunk of its own: MCP servers boot and the provider connection warms while the rest loads (cli/early-start.ts).
  void import("./cli/early-start.ts")
  void import("./cli/entry.ts").then((entry) => entry.main(argv, pkg.version))
}
