import * as Effect from "effect/Effect"
import { runMain } from "../../layers/runtime.ts"
import { reportArgsProblem } from "./cli-errors.ts"
import { parseFast } from "./fast-args.ts"
import { checkSessionArgs } from "./flag-check.ts"
import type { Invocation } from "./flags.ts"
import { isTerminal } from "./prompt-input.ts"
import { writeStderr } from "../terminal/output.ts"
import { ExitCode } from "../../layers/exit-code.ts"
import { runCommand } from "./run-command.ts"

/** Runs what the command line asks for; the exit code comes back as the effect's value. */
export const runInvocation = (invocation: Invocation): Effect.Effect<number> => {
  if (invocation._tag === "Run") return runCommand(invocation.prompt, invocation.flags)
  return Effect.promise(() => isTerminal(0)).pipe(
    Effect.flatMap((tty) =>
      invocation._tag === "Space"
        ? tty
          ? Effect.promise(() => import("./chat.ts")).pipe(Effect.flatMap((chat) => chat.spaceCommand(invocation.dir, invocation.flags)))
          : Effect.sync(() => {
              writeStderr("crystal space: needs a terminal (it is interactive); from a script, cd there and use `crystal run`\n")
              return ExitCode.usage
            })
        : tty
        ? Effect.promise(() => import("./chat.ts")).pipe(Effect.flatMap((chat) => chat.chatCommand(invocation.flags)))
        : runCommand(undefined, invocation.flags)
    )
  )
}

export const main = (argv: ReadonlyArray<string>, version: string): void => {
  // An editor's agent (src/acp/): started without the command tree, its SDK in a chunk of its own.
  if (argv.length === 1 && argv[0] === "acp") {
    void import("../acp/main.ts").then((acp) => acp.main(version))
    return
  }
  const fast = parseFast(argv)
  if (fast !== undefined) {
    runMain(runInvocation(fast))
    return
  }
  const problem = checkSessionArgs(argv)
  if (problem !== undefined) {
    reportArgsProblem(problem)
    process.exit(ExitCode.usage)
  }
  void import("./commands.ts").then((commands) => runMain(commands.runFullCli(argv, version)))
}
