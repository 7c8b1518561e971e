/// <reference types="bun" />
/** Shared helpers for the benchmarks: run under Bun (`bun scripts/bench/X.ts`). */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const root = path.resolve(import.meta.dirname, "..", "..")
export const crystalBinary = path.join(root, "dist", process.platform === "win32" ? "crystal.exe" : "crystal")

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

export const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`
export const ms = (value: number): string => `${value.toFixed(1)} ms`
export const ratio = (value: number, baseline: number): string => `${(value / baseline).toFixed(2)}×`

/** Compiles a program that does nothing, the floor every compiled Bun binary pays. */
export const compileEmptyProgram = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-"))
  const source = path.join(dir, "empty.ts")
  const binary = path.join(dir, "empty")
  fs.writeFileSync(source, "export {}\n")
  const result = Bun.spawnSync([process.execPath, "build", source, "--compile", "--minify", "--bytecode", "--outfile", binary])
  if (result.exitCode !== 0) throw new Error(`could not compile the empty program: ${result.stderr.toString()}`)
  return binary
}

/** Wall time from spawn to exit. */
export const timeProcess = async (
  argv: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly cwd?: string } = {}
): Promise<number> => {
  const started = performance.now()
  const child = Bun.spawn([...argv], {
    stdout: "ignore",
    stderr: "ignore",
    stdin: "ignore",
    env: options.env ?? process.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd })
  })
  await child.exited
  return performance.now() - started
}

const gnuTime = "/usr/bin/time"

/**
 * Peak RSS of a command, in bytes, from GNU time (Debian package "time"), or undefined without it.
 * Not from Bun.spawn's resourceUsage(): Linux starts a child's maxrss at its parent's RSS at fork,
 * so that figure reports the benchmark's own memory, not the child's.
 */
export const peakRss = async (
  argv: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly cwd?: string } = {}
): Promise<number | undefined> => {
  if (!fs.existsSync(gnuTime)) return undefined
  const child = Bun.spawn([gnuTime, "-f", "%M", ...argv], {
    stdout: "ignore",
    stderr: "pipe",
    stdin: "ignore",
    env: options.env ?? process.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd })
  })
  const [stderr] = await Promise.all([new Response(child.stderr).text(), child.exited])
  const kib = Number(stderr.trim().split("\n").at(-1))
  return Number.isFinite(kib) ? kib * 1024 : undefined
}

export const rssText = (bytes: number | undefined): string => (bytes === undefined ? "n/a (needs GNU time)" : mib(bytes))

export const requireCrystalBinary = (): void => {
  if (!fs.existsSync(crystalBinary)) {
    console.error(`${path.relative(root, crystalBinary)} is missing: run \`npm run build\` first`)
    process.exit(1)
  }
}

/** A number given on the command line: `--runs 20` → 20; `fallback` when the option is absent. */
export const flag = (name: string, fallback: number): number => {
  const text = flagText(name)
  return text === undefined ? fallback : Number(text)
}

/** The word after an option on the command line, or undefined when the option is absent. */
export const flagText = (name: string): string | undefined => {
  const at = process.argv.indexOf(name)
  return at > 0 ? process.argv[at + 1] : undefined
}

export const us = (milliseconds: number): string => `${(milliseconds * 1000).toFixed(1)} µs`

/** Milliseconds per run of a synchronous `run`: the best of `batches` batches of `runs`, after `warmUp` runs. */
export const bestPerRun = (run: () => unknown, options: { readonly batches: number; readonly runs: number; readonly warmUp: number }): number => {
  for (let i = 0; i < options.warmUp; i++) run()
  let best = Number.POSITIVE_INFINITY
  for (let batch = 0; batch < options.batches; batch++) {
    const start = performance.now()
    for (let i = 0; i < options.runs; i++) run()
    best = Math.min(best, (performance.now() - start) / options.runs)
  }
  return best
}
