/**
 * Start-up fast path: the common command lines (`crystal`, `crystal run ...`, `crystal space ...` with the session flags)
 * are read here without loading @effect/cli, which costs ~40 ms in the compiled binary. Anything
 * the session-flag scanner (flags.ts) does not take (help, unknown flags, bad values, other
 * commands) returns undefined and the full @effect/cli tree handles it, after flag-check.ts has
 * had its say on a bad session flag.
 */
import { scanSessionCommandLine, type Invocation } from "./flags.ts"

export const parseFast = (argv: ReadonlyArray<string>): Invocation | undefined => {
  const scanned = scanSessionCommandLine(argv)
  return scanned._tag === "Invocation" ? scanned.invocation : undefined
}
