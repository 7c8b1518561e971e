/// <reference types="bun" />
/**
 * What the grep tool pays for walking the search's directories for ignore files rg must not open
 * (a FIFO, a device; src/tools/grep.ts) while rg runs: `runGrep` (rg and the walk, raced) against
 * rg alone (`grepWithRipgrep`) on the same tree, interleaved, medians of wall time and of this
 * process's CPU (the walk runs here; rg's own CPU is the same in both).
 * Usage: bun scripts/bench/grep-ignore-check.ts [--runs N] [--corpus DIR (default: this checkout's node_modules)]
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { GrepRequest } from "../../src/tools/grep-records.ts"
import { runGrep } from "../../src/tools/grep.ts"
import { findRipgrep, grepWithRipgrep } from "../../src/tools/ripgrep.ts"
import { flagText, median, ms, flag, ratio, root } from "./measure.ts"

const runs = flag("--runs", 15)
const corpus = fs.realpathSync(flagText("--corpus") ?? path.join(root, "node_modules"))
const rg = await findRipgrep()
if (rg === undefined) {
  console.error("rg is not on PATH: nothing to compare")
  process.exit(1)
}

const request: GrepRequest = { pattern: "zq_no_such_word_xj", ignoreCase: false, context: 0, filesOnly: false, glob: undefined, root: corpus, target: corpus, targetIsFile: false }

const timed = async (run: Effect.Effect<unknown, unknown>): Promise<{ wall: number; cpu: number }> => {
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Effect.runPromise(Effect.either(run))
  const used = process.cpuUsage(cpu)
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 }
}

const alone: Array<{ wall: number; cpu: number }> = []
const checked: Array<{ wall: number; cpu: number }> = []
await timed(grepWithRipgrep(rg, request)) // warm the page cache
for (let i = 0; i < runs; i++) {
  alone.push(await timed(grepWithRipgrep(rg, request)))
  checked.push(await timed(runGrep(rg, request)))
}
const wall = [median(alone.map((run) => run.wall)), median(checked.map((run) => run.wall))] as const
const cpu = [median(alone.map((run) => run.cpu)), median(checked.map((run) => run.cpu))] as const
console.log(`corpus ${corpus}, ${runs} interleaved runs, medians`)
console.log(`rg alone:        wall ${ms(wall[0])}, this process's CPU ${ms(cpu[0])}`)
console.log(`rg + the walk:   wall ${ms(wall[1])} (${ratio(wall[1], wall[0])}), this process's CPU ${ms(cpu[1])} (+${ms(cpu[1] - cpu[0])})`)
