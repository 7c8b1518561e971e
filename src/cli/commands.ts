/**
 * The full command tree (@effect/cli): help, completions, validation errors, and every command the
 * start-up fast path does not take. Session flags come from the same table as the fast path.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { captureCliErrors, reportArgsProblem, reportCliError } from "./cli-errors.ts"
import { fullCliDisagreement } from "./flag-check.ts"
import { runInvocation } from "./entry.ts"
import type { Invocation } from "./flags.ts"
import { ExitCode } from "../../layers/exit-code.ts"
import { sessionOptions, toSessionFlags } from "./session-options.ts"
import { sessionsCommand } from "./sessions-command.ts"
import { promptAttachmentsCommand } from "./prompt-attachments-command.ts"
import { promptsetsCommand } from "./promptsets-command.ts"
import { pluginsCommand } from "./plugins-command.ts"
import { toolsCommand } from "./tools-command.ts"
import { mcpCommand } from "./mcp-command.ts"
import { agentsCommand } from "./agents-command.ts"
import { acpCommand } from "../acp/command.ts"
import { checkpointsCommand, rewindCommand } from "./checkpoints-command.ts"

/** @effect/cli handlers return nothing, so each reports its exit code through `done`. */
export const commandTree = (invoke: (invocation: Invocation) => Effect.Effect<number>, done: (code: number) => void) => {
  const report = (effect: Effect.Effect<number>) => Effect.map(effect, done)
  const run = Command.make(
    "run",
    {
      ...sessionOptions,
      prompt: Args.text({ name: "PROMPT" }).pipe(Args.withDescription("What to do (default: read stdin)"), Args.optional)
    },
    (parsed) => report(invoke({ _tag: "Run", prompt: Option.getOrUndefined(parsed.prompt), flags: toSessionFlags(parsed) }))
  ).pipe(Command.withDescription("Run one prompt to completion without asking anyone, then exit (scripts and CI)"))

  const space = Command.make(
    "space",
    {
      ...sessionOptions,
      dir: Args.text({ name: "DIR" }).pipe(Args.withDescription("The workspace (default: pick one of the saved sessions' workspaces)"), Args.optional)
    },
    (parsed) => report(invoke({ _tag: "Space", dir: Option.getOrUndefined(parsed.dir), flags: toSessionFlags(parsed) }))
  ).pipe(Command.withDescription("A conversation in another workspace: DIR, or one picked from the recently used ones"))

  return Command.make("crystal", sessionOptions, (parsed) => report(invoke({ _tag: "Chat", flags: toSessionFlags(parsed) }))).pipe(
    Command.withDescription("A coding agent for the terminal. Without a command: a conversation in the current directory"),
    Command.withSubcommands([
      run,
      space,
      sessionsCommand(done),
      promptsetsCommand(done),
      promptAttachmentsCommand(done),
      pluginsCommand(done),
      toolsCommand(done),
      mcpCommand(done),
      agentsCommand(done),
      acpCommand(done),
      checkpointsCommand(done),
      rewindCommand(done)
    ])
  )
}

export const runFullCli = (argv: ReadonlyArray<string>, version: string): Effect.Effect<number> => {
  let exitCode: number = ExitCode.ok
  // What @effect/cli parsed must be what the session flags say, or the line is refused (flag-check.ts).
  const checked = (invocation: Invocation): Effect.Effect<number> => {
    const problem = fullCliDisagreement(argv, invocation)
    if (problem === undefined) return runInvocation(invocation)
    return Effect.sync(() => {
      reportArgsProblem(problem)
      return ExitCode.usage
    })
  }
  const tree = commandTree(checked, (code) => {
    exitCode = code
  })
  // @effect/cli's validation errors are captured and printed as one line (cli-errors.ts).
  return captureCliErrors(Command.run(tree, { name: "Crystal", version })(["crystal", "crystal", ...argv])).pipe(
    Effect.provide(NodeContext.layer),
    Effect.map(([succeeded, captured]) => {
      if (succeeded) return exitCode
      reportCliError(argv, captured)
      return ExitCode.usage
    })
  )
}
