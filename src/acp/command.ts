/**
 * `crystal acp` in the command tree, for --help and completions. A plain `crystal acp` never gets
 * here (src/main.ts takes it before the tree loads); the SDK loads only when the command runs.
 */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import pkg from "../../package.json" with { type: "json" }

export const acpCommand = (done: (code: number) => void) =>
  Command.make("acp", {}, () =>
    Effect.promise(() => import("./agent.ts")).pipe(
      Effect.flatMap((agent) => agent.runAcp(pkg.version)),
      Effect.map(done)
    )
  ).pipe(Command.withDescription("Serve an editor over stdio as an Agent Client Protocol agent (Zed, JetBrains; see docs/acp.md)"))
