/**
 * The runtime choice, in one file: run the program's main fiber on the platform we are on, turn
 * SIGINT, SIGTERM, SIGHUP (the terminal closed) and SIGQUIT into interruption (so scopes close,
 * processes die, sessions save), and exit with the program's code, or 128 + the signal's number
 * as a shell reports a death by that signal (130, 143, 129, 131: SIGQUIT dumps no core here, the
 * session is closed cleanly instead). A second signal while shutting down exits at once.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { writeInertStderr } from "../src/terminal/output.ts"
import { closingSignals, ExitCode, signalExitCode } from "./exit-code.ts"

interface BunUnsafe {
  readonly unsafe?: { readonly setJITPolicy?: (scale: number) => void }
}

/**
 * The compiled binary starts with a lazy JIT (scripts/build.ts: --compile-jit-policy) because
 * start-up code runs once and rarely repays compiling it. Once the session is under way, the
 * normal policy comes back for the code that does run hot (streaming, search, large files).
 */
export const startupComplete = (): void => {
  const bun = (globalThis as { readonly Bun?: BunUnsafe }).Bun
  bun?.unsafe?.setJITPolicy?.(1)
}


export const runMain = (program: Effect.Effect<number>): void => {
  const fiber = Effect.runFork(program)
  let received: NodeJS.Signals | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    if (received !== undefined) process.exit(signalExitCode(signal))
    received = signal
    Effect.runFork(Fiber.interrupt(fiber))
  }
  for (const name of closingSignals) process.on(name, onSignal)
  fiber.addObserver((exit) => {
    if (Exit.isSuccess(exit)) process.exit(exit.value)
    if (!Exit.isInterrupted(exit)) {
      // Not a user error (those are handled and become exit codes): a bug, so show everything.
      writeInertStderr(`crystal: internal error\n${Cause.pretty(exit.cause)}\n`)
      process.exit(70)
    }
    process.exit(received === undefined ? ExitCode.interrupted : signalExitCode(received))
  })
}
