/// <reference types="bun" />
/**
 * The shell tools' own cost, against baselines measured in the same run:
 *   - spawn-to-result of the bash tool running `true` (spawn with process group, output capture,
 *     leftover check, formatting) vs a bare node:child_process spawn of `bash -c true` with piped
 *     output; runs interleaved so machine noise hits both alike. Target ≤ 1.5×.
 *   - background log throughput: a task printing as fast as it can (`yes`) for a few seconds,
 *     bytes taken into its ring buffer per second, vs a bare spawn of `yes` whose output is read
 *     and thrown away; with the peak RSS growth of this process while the task runs.
 * Usage: bun scripts/bench/bash.ts [--runs N] [--seconds S]
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { makePathFence } from "../../src/approval/path-fence.ts"
import { makeBackgroundBash } from "../../src/bash/background.ts"
import { makeBashTools } from "../../src/tools/bash-tools.ts"
import type { ToolContext } from "../../src/tools/tool.ts"
import { flag, median, mib, ms, ratio } from "./measure.ts"
import { noSecrets } from "../../src/secrets/secrets.ts"

const runs = flag("--runs", 200)
const seconds = flag("--seconds", 3)

const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-bash-")))
const context: ToolContext = {
  fence: await makePathFence(workspace, []),
  sessionId: "bench",
  secrets: noSecrets,
  spill: () => Effect.succeed(path.join(workspace, "spill.txt"))
}

const scope = Effect.runSync(Scope.make())
const background = await Effect.runPromise(makeBackgroundBash({ timeoutSeconds: null }).pipe(Effect.provideService(Scope.Scope, scope)))
const tools = makeBashTools({
  background,
  bashTimeoutSeconds: 120,
  classifyCommand: () => Effect.die("not classified in the benchmark")
})

const bareSpawn = (detached: boolean) => (): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn("/bin/bash", ["-c", "true"], { cwd: workspace, stdio: ["ignore", "pipe", "pipe"], detached })
    const chunks: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk))
    child.on("error", reject)
    child.on("close", () => resolve())
  })

const toolRun = async (): Promise<void> => {
  const output = await Effect.runPromise(tools.bash.run({ command: "true" }, context))
  if (output.text !== "exit 0\n(no output)") throw new Error(`unexpected result: ${output.text}`)
}

const time = async (run: () => Promise<void>): Promise<number> => {
  const started = performance.now()
  await run()
  return performance.now() - started
}

// --- spawn-to-result overhead -------------------------------------------------------------------
const variants = [
  { name: "bare spawn of bash -c true           ", run: bareSpawn(false), times: [] as Array<number> },
  { name: "bare spawn, detached (new session)   ", run: bareSpawn(true), times: [] as Array<number> },
  { name: "bash tool (detached + capture + kill)", run: toolRun, times: [] as Array<number> }
]
for (let index = 0; index < 10; index++) for (const variant of variants) await variant.run()
for (let index = 0; index < runs; index++) {
  // Rotate the order so that no variant always runs right after another.
  for (let offset = 0; offset < variants.length; offset++) {
    const variant = variants[(index + offset) % variants.length]!
    variant.times.push(await time(variant.run))
  }
}
const [plain, detached, tool] = variants.map((variant) => median(variant.times)) as [number, number, number]
console.log(`bash tool \`true\`, spawn to result (median of ${runs}, interleaved)`)
console.log(`  ${variants[0]!.name}: ${ms(plain)}`)
console.log(`  ${variants[1]!.name}: ${ms(detached)}  (${ratio(detached, plain)})`)
console.log(`  ${variants[2]!.name}: ${ms(tool)}  (${ratio(tool, plain)} the bare spawn, target ≤ 1.50×; ${ratio(tool, detached)} the detached one)`)

// --- background log throughput ------------------------------------------------------------------
interface Throughput {
  readonly bytes: number
  /** CPU time of this process (user + system) per MB taken in: what reading costs us, whatever the load. */
  readonly cpuPerMb: number
}

const bareYes = (): Promise<Throughput> =>
  new Promise((resolve) => {
    const cpu = process.cpuUsage()
    const child = spawn("yes", [], { stdio: ["ignore", "pipe", "ignore"] })
    let bytes = 0
    child.stdout.on("data", (chunk: Buffer) => (bytes += chunk.length))
    setTimeout(() => {
      child.kill("SIGKILL")
      const used = process.cpuUsage(cpu)
      resolve({ bytes, cpuPerMb: (used.user + used.system) / (bytes / 1e6) })
    }, seconds * 1000)
  })

const taskYes = async (): Promise<Throughput & { readonly held: number }> => {
  const cpu = process.cpuUsage()
  const task = await Effect.runPromise(background.start("yes", { cwd: workspace, secrets: noSecrets }))
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  const slice = await Effect.runPromise(background.logs(task.id, { limit: 64 }))
  const used = process.cpuUsage(cpu)
  await Effect.runPromise(background.stop(task.id))
  if (!slice.text.endsWith("y\n") && !slice.text.endsWith("y")) throw new Error(`unexpected log tail ${JSON.stringify(slice.text)}`)
  return { bytes: slice.totalBytes, cpuPerMb: (used.user + used.system) / (slice.totalBytes / 1e6), held: slice.totalBytes - slice.oldestOffset }
}

const rounds = 3
const bareRounds: Array<Throughput> = []
const taskRounds: Array<Throughput & { readonly held: number }> = []
/** Peak RSS above the level before each measured window, per kind of window. */
const growth = { bare: [] as Array<number>, task: [] as Array<number> }
const withPeakRss = async <A>(kind: "bare" | "task", run: () => Promise<A>): Promise<A> => {
  Bun.gc(true)
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25)
  const result = await run()
  clearInterval(sampler)
  growth[kind].push(Math.max(peak, process.memoryUsage().rss) - before)
  return result
}
for (let round = 0; round < rounds; round++) {
  bareRounds.push(await withPeakRss("bare", bareYes))
  taskRounds.push(await withPeakRss("task", taskYes))
}
const mbps = (bytes: number): string => `${(bytes / seconds / 1e6).toFixed(0)} MB/s`
const bareBytes = median(bareRounds.map((round) => round.bytes))
const taskBytes = median(taskRounds.map((round) => round.bytes))
console.log(`\nbackground log throughput, \`yes\` for ${seconds} s (median of ${rounds} interleaved rounds)`)
console.log(`  bare spawn, output read and dropped  : ${mbps(bareBytes)}, ${median(bareRounds.map((round) => round.cpuPerMb)).toFixed(0)} µs CPU per MB`)
console.log(
  `  bash_start task into its ring buffer : ${mbps(taskBytes)} (${ratio(taskBytes, bareBytes)}), ${median(taskRounds.map((round) => round.cpuPerMb)).toFixed(0)} µs CPU per MB`
)
console.log(`  ring buffer held ${mib(taskRounds[0]?.held ?? 0)} per task; largest run wrote ${mib(Math.max(...taskRounds.map((round) => round.bytes)))}`)
console.log(`  peak RSS growth per round: bare reads ${growth.bare.map(mib).join(", ")}; task ${growth.task.map(mib).join(", ")}`)
console.log("  (both are garbage-collector lag on the chunks read; the task adds its 1 MiB buffer, independent of bytes written)")

await Effect.runPromise(Scope.close(scope, Exit.void))
fs.rmSync(workspace, { recursive: true, force: true })
