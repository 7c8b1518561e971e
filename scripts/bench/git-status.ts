/// <reference types="bun" />
/**
 * What the nested-repository check (issue 23) adds to `git status` in a repository with three
 * submodules, against a baseline measured in the same run:
 *   - bare: spawn `git status` and wait for it;
 *   - checked: Crystal's classification of the `git status` call (parse, fence, the config and
 *     hooks of every repository git enters, the index's gitlinks), then the same spawn.
 * Runs interleaved, medians of wall time and of CPU time (git's and its children's, plus this
 * process's for the classification: steadier than wall time on a loaded machine), ratios
 * (target ≤ 1.2×); and the classification of a `cat` in the same place, which checks no
 * repository, for the share of the nested-repository check. Also the classification alone, with the
 * index cache warm and after the index changed (a re-read), in that repository and in one whose
 * index holds `--files` entries (default 20000).
 * Usage: bun scripts/bench/git-status.ts [--runs N] [--files N]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { classifyBash } from "../../src/approval/bash/classify.ts"
import { makePathFence, type PathFence } from "../../src/approval/path-fence.ts"
import { git, gitEnvironment, makeSuperproject } from "../../test/support/git-repos.ts"
import { flag, median, ms, ratio } from "./measure.ts"

const runs = flag("--runs", 100)
const files = flag("--files", 20000)

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-git-")))
const superproject = makeSuperproject(path.join(root, "sources"), path.join(root, "super"), 3, { nested: false })
const fence = makePathFence(superproject)
const environment = { PATH: gitEnvironment["PATH"] }

const classify = (repo: PathFence, line = "git status"): void => {
  const classification = Effect.runSync(classifyBash(line, repo, { home: root, environment }))
  if (classification.authority !== "read" || classification.risk !== "low") throw new Error(`${line} is not a plain read here: ${classification.summary}`)
}

interface Sample {
  /** Wall time, spawn (and classification) to exit. */
  readonly wall: number
  /** CPU time: git's and its children's (rusage), plus this process's for the classification. */
  readonly cpu: number
}

/** `git status` in the superproject: wall time, and the CPU time of git and the git processes it starts per submodule. */
const gitStatus = async (): Promise<Sample> => {
  const started = performance.now()
  const child = Bun.spawn(["git", "status"], { cwd: superproject, env: { ...gitEnvironment }, stdout: "ignore", stderr: "ignore", stdin: "ignore" })
  await child.exited
  const usage = child.resourceUsage()
  return { wall: performance.now() - started, cpu: usage === undefined ? Number.NaN : Number(usage.cpuTime.total) / 1000 }
}

/** Classifies `line`, then runs git status: the classification's CPU time is this process's. */
const classifiedThenRun = (line: string) => async (): Promise<Sample> => {
  const started = performance.now()
  const cpu = process.cpuUsage()
  classify(fence, line)
  const used = process.cpuUsage(cpu)
  const status = await gitStatus()
  return { wall: performance.now() - started, cpu: status.cpu + (used.user + used.system) / 1000 }
}

const variants = [
  { name: "bare git status                    ", run: gitStatus, samples: [] as Array<Sample> },
  { name: "classification + git status        ", run: classifiedThenRun("git status"), samples: [] as Array<Sample> },
  // What any classification costs in that place (no repository to check), for the nested check's share.
  { name: "(classification of `cat` + git status)", run: classifiedThenRun("cat top.txt"), samples: [] as Array<Sample> }
]
for (let index = 0; index < 5; index++) for (const variant of variants) await variant.run()
for (let index = 0; index < runs; index++) {
  for (let offset = 0; offset < variants.length; offset++) {
    const variant = variants[(index + offset) % variants.length]!
    variant.samples.push(await variant.run())
  }
}
const [plain, withCheck, withCat] = variants.map((variant) => ({ wall: median(variant.samples.map((s) => s.wall)), cpu: median(variant.samples.map((s) => s.cpu)) })) as [
  { wall: number; cpu: number },
  { wall: number; cpu: number },
  { wall: number; cpu: number }
]
console.log(`git status in a repository with 3 submodules (median of ${runs}, interleaved; target ≤ 1.20×)`)
console.log(`  ${variants[0]!.name}: wall ${ms(plain.wall)}, CPU ${ms(plain.cpu)}`)
console.log(`  ${variants[1]!.name}: wall ${ms(withCheck.wall)} (${ratio(withCheck.wall, plain.wall)}), CPU ${ms(withCheck.cpu)} (${ratio(withCheck.cpu, plain.cpu)})`)
console.log(`  ${variants[2]!.name}: wall ${ms(withCat.wall)} (${ratio(withCat.wall, plain.wall)}), CPU ${ms(withCat.cpu)} (${ratio(withCat.cpu, plain.cpu)})`)

/** Median time of the classification alone; `touch` first changes the index's stat so its gitlinks are read again. */
const classificationAlone = (repo: PathFence, index: string, touch: boolean): number => {
  const times: Array<number> = []
  for (let round = 0; round < runs; round++) {
    if (touch) fs.utimesSync(index, new Date(), new Date(Date.now() - round * 1000))
    const started = performance.now()
    classify(repo)
    times.push(performance.now() - started)
  }
  return median(times)
}

const big = path.join(root, "big")
fs.cpSync(superproject, big, { recursive: true, verbatimSymlinks: true })
for (let i = 0; i < files; i++) {
  const dir = path.join(big, "src", `d${Math.floor(i / 100)}`)
  if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i}\n`)
}
git(big, "add", "-A")
const bigFence = makePathFence(big)
const bigIndexBytes = fs.statSync(path.join(big, ".git", "index")).size
console.log(`\nthe classification of \`git status\` alone (median of ${runs})`)
for (const [label, repo, dir] of [
  ["3 submodules", fence, superproject],
  [`3 submodules, ${files} files (index ${(bigIndexBytes / 1048576).toFixed(1)} MiB)`, bigFence, big]
] as const) {
  const index = path.join(dir, ".git", "index")
  console.log(`  ${label}: ${ms(classificationAlone(repo, index, false))} with the index cached, ${ms(classificationAlone(repo, index, true))} when the index changed each time`)
}

fs.rmSync(root, { recursive: true, force: true })
