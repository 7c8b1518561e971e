/**
 * @effect/cli prints a validation error as a help document on stderr (often several lines, with
 * blank ones). Its error output is captured here and printed as one line naming the command, so
 * every bad command line ends in one line (help itself still goes to stdout unchanged).
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { writeInertStderr } from "../terminal/output.ts"
import { writeJsonEvent } from "./render/json-event.ts"
import type { ArgsProblem } from "./flag-check.ts"
import { otherCommands } from "./flags.ts"
import { oneLine } from "../text/clip.ts"

/** `crystal` and the subcommand named first, when it is one. */
const commandName = (argv: ReadonlyArray<string>): string => {
  const first = argv[0] ?? ""
  return (otherCommands as ReadonlyArray<string>).includes(first) ? `crystal ${first}` : "crystal"
}

const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, "")

/** Runs `program` with @effect/cli's error printing captured: whether it succeeded, and what it would have printed. */
export const captureCliErrors = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<readonly [boolean, string], never, R> =>
  Effect.gen(function* () {
    const base = yield* Effect.console
    let captured = ""
    const capturing: Console.Console = {
      ...base,
      error: (...args: ReadonlyArray<unknown>) =>
        Effect.sync(() => {
          captured += `${args.map(String).join(" ")}\n`
        })
    }
    const succeeded = yield* program.pipe(Effect.withConsole(capturing), Effect.as(true), Effect.orElseSucceed(() => false))
    return [succeeded, captured] as const
  })

/** Prints @effect/cli's captured error as `crystal CMD: message`. */
export const reportCliError = (argv: ReadonlyArray<string>, captured: string): void => {
  const line = oneLine(plain(captured))
  if (line !== "") writeInertStderr(`${commandName(argv)}: ${line}\n`)
}

/** A problem found by flag-check.ts: a line on stderr, or the JSON error event under --format json. */
export const reportArgsProblem = (problem: ArgsProblem): void => {
  if (problem.json) writeJsonEvent({ type: "error", message: problem.message })
  else writeInertStderr(`${problem.message}\n`)
}
