/**
 * For tests of hostile repositories against the git read check: show that the real git runs a
 * planted program (it leaves a marker file), then that the classifier makes the call ask under
 * `--approval plan` and `default`; and that clean reads still run unasked.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { expect } from "vitest"
import { classifyBash } from "../../src/approval/bash/classify.ts"
import type { Classification } from "../../src/approval/classification.ts"
import { makePathFence } from "../../src/approval/path-fence.ts"
import { decide } from "../../src/approval/policy.ts"
import { gitEnvironment } from "./git-repos.ts"

/** Sets a key in a git config file with the real git. */
export const setConfig = (file: string, key: string, value: string): void => {
  execFileSync("git", ["config", "-f", file, key, value], { env: gitEnvironment })
}

/** Runs a shell command line the way the bash tool would, with git's environment, ignoring its exit code. */
export const runShell = (cwd: string, line: string): void => {
  try {
    execFileSync("bash", ["-c", line], { cwd, env: gitEnvironment, stdio: "ignore", timeout: 60_000 })
  } catch {
    // git may fail after running the program; only the marker counts.
  }
}

/** The real git runs the planted program (it creates `marker`) for this command line: the attack is real. */
export const expectGitRunsIt = (marker: string, cwd: string, line: string): void => {
  fs.rmSync(marker, { force: true })
  runShell(cwd, line)
  expect(fs.existsSync(marker), `git ran no planted program for: ${line}`).toBe(true)
  fs.rmSync(marker, { force: true })
}

export const classify = (ws: string, line: string): Classification =>
  Effect.runSync(classifyBash(line, makePathFence(ws), { home: path.dirname(ws), environment: { PATH: gitEnvironment["PATH"] } }))

export const verdicts = (ws: string, line: string): { readonly plan: string; readonly default: string; readonly summary: string } => {
  const classification = classify(ws, line)
  const verdict = (mode: "plan" | "default"): string => decide(mode, { classification, builtinEdit: false })._tag
  return { plan: verdict("plan"), default: verdict("default"), summary: classification.summary }
}

/** The line asks under plan and default approval, giving `reason` in its summary. */
export const expectAsks = (ws: string, line: string, reason: string | RegExp): void => {
  const { plan, default: normal, summary } = verdicts(ws, line)
  expect(plan, summary).not.toBe("Allow")
  expect(normal, summary).not.toBe("Allow")
  expect(summary).toMatch(reason)
}

export const expectRunsUnasked = (ws: string, line: string): void => {
  const { plan, default: normal, summary } = verdicts(ws, line)
  expect(plan, summary).toBe("Allow")
  expect(normal, summary).toBe("Allow")
}
