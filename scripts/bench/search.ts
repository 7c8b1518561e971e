/// <reference types="bun" />
/**
 * The search index on a large real tree, next to `rg -l` for the same keywords over the same tree
 * in the same run (interleaved, so machine noise hits both alike):
 *   - cold: building the index (walk, read, tokenize), in a fresh process each run, as the first
 *     search of a session does; compared with one `rg -l` pass;
 *   - warm: one query on the built index (refresh by stat + ranking + re-reading the best files for
 *     snippets), median of 20 different queries;
 *   - peak RSS of the process that built the index and ran the queries.
 * The tree: node_modules of a few big npm packages (20k+ files), installed once into a temp folder.
 * Usage: bun scripts/bench/search.ts [--runs N] [--corpus DIR] [--workers N (default: as the tool)]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { SearchIndex } from "../../src/search/forward-index.ts"
import { parseQuery } from "../../src/search/tokenize.ts"
import { flagText, median, mib, ms, ratio, root } from "./measure.ts"

const QUERIES: ReadonlyArray<string> = [
  "how is the retry-after header parsed",
  "parse typescript source file",
  "lodash debounce implementation",
  "webpack chunk graph",
  "date format locale",
  "babel traverse visitor path",
  "observable subscribe unsubscribe",
  "three matrix4 multiply",
  "eslint rule no unused vars",
  "emotion styled component theme",
  "core-js array flat polyfill",
  "module federation container",
  "source map consumer mappings",
  "button ripple effect",
  "type checker diagnostics",
  "rxjs switchMap operator",
  "add business days",
  "scope binding rename",
  "hot module replacement",
  "json schema validation error"
]

const PACKAGES = [
  "typescript", "@babel/core", "@babel/parser", "@babel/traverse", "rxjs", "lodash", "date-fns", "core-js", "eslint",
  "webpack", "three", "@mui/material", "@emotion/react", "@emotion/styled"
]


// ---- child: one cold build and the warm queries, in a fresh process ------------------------------------

interface ChildResult {
  readonly coldMs: number
  readonly queryMs: ReadonlyArray<number>
  readonly refreshMs: ReadonlyArray<number>
  readonly peakRss: number
  /** RSS after the queries and a full garbage collection: what the index keeps. */
  readonly retainedRss: number
  /** JS heap plus array buffers after that collection (RSS keeps pages the allocator did not return). */
  readonly retainedHeap: number
  readonly stats: Record<string, unknown>
  readonly top: ReadonlyArray<string>
}

if (process.argv[2] === "--child") {
  const tree = process.argv[3] ?? ""
  // What Crystal loads at start-up (Effect, and the tool registry with tool.ts and effect/Schema)
  // is not part of the first search; the search modules are loaded by it (builtin.ts imports them
  // lazily), so their import is timed.
  await import("effect/Effect")
  await import("../../src/tools/builtin.ts")
  const workers = process.argv[4] === "" || process.argv[4] === undefined ? undefined : Number(process.argv[4])
  const started = performance.now()
  const { SearchIndexCache } = await import("../../src/search/cache.ts")
  const { withSearchIndex } = await import("../../src/search/forward-index.ts")
  const cache = new SearchIndexCache(workers === undefined ? {} : { workers })
  const { rankFiles } = await import("../../src/tools/search.ts")
  const { parseQuery } = await import("../../src/search/tokenize.ts")
  // The first search of a session: the index is built (and kept) by the same call the tool makes.
  let index: SearchIndex | undefined
  await withSearchIndex(cache, tree, (built) => {
    index = built
  })
  const coldMs = performance.now() - started
  const queryMs: Array<number> = []
  const refreshMs: Array<number> = []
  const top: Array<string> = []
  for (const query of QUERIES) {
    const t0 = performance.now()
    await index?.refresh()
    refreshMs.push(performance.now() - t0)
    const t1 = performance.now()
    const result = await withSearchIndex(cache, tree, (current) => rankFiles(current, parseQuery(query).stems, "", 10))
    // The timed query is the tool's whole path: refresh, rank, rerank (the refresh above only splits it out).
    queryMs.push(performance.now() - t1)
    top.push(`${query} → ${result.hits[0]?.rel ?? "(none)"}`)
  }
  Bun.gc(true)
  const result: ChildResult = {
    coldMs,
    queryMs,
    refreshMs,
    peakRss: process.resourceUsage().maxRSS * 1024,
    retainedRss: process.memoryUsage().rss,
    retainedHeap: process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers,
    stats: { ...index?.stats() },
    top
  }
  console.log(JSON.stringify(result))
  process.exit(0)
}

// ---- parent ---------------------------------------------------------------------------------------------

const runs = Number(flagText("--runs") ?? 5)

const countFiles = (dir: string): number => {
  let count = 0
  const visit = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      if (entry.isDirectory()) visit(path.join(current, entry.name))
      else if (entry.isFile()) count++
    }
  }
  visit(dir)
  return count
}

const prepareCorpus = (): string => {
  const given = flagText("--corpus")
  if (given !== undefined) return path.resolve(given)
  const dir = path.join(os.tmpdir(), "crystal-search-bench")
  const marker = path.join(dir, ".installed")
  if (!fs.existsSync(marker)) {
    fs.rmSync(dir, { recursive: true, force: true })
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "search-bench-corpus", private: true }))
    console.log(`installing ${PACKAGES.join(" ")} into ${dir} …`)
    const npm = Bun.spawnSync(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", ...PACKAGES], {
      cwd: dir,
      stdout: "inherit",
      stderr: "inherit"
    })
    if (npm.exitCode !== 0) throw new Error("npm install failed")
    fs.writeFileSync(marker, new Date().toISOString())
  }
  return dir
}

const corpus = prepareCorpus()
const fileCount = countFiles(corpus)
if (fileCount < 20_000) console.warn(`warning: only ${fileCount} files in ${corpus} (the benchmark wants 20k+)`)

const rg = Bun.which("rg")
/** One `rg -l` pass for a query's keywords: the words the search uses, as one case-insensitive alternation. */
const rgPass = (query: string): number => {
  if (rg === null) return Number.NaN
  const words = [...new Set(parseQuery(query).words)]
  const started = performance.now()
  Bun.spawnSync([rg, "-l", "--hidden", "--no-require-git", "-g", "!.git", "-i", "-e", words.join("|"), corpus], { stdout: "ignore", stderr: "ignore" })
  return performance.now() - started
}

const child = (): ChildResult => {
  const result = Bun.spawnSync([process.execPath, import.meta.path, "--child", corpus, flagText("--workers") ?? ""], { stdout: "pipe", stderr: "inherit", cwd: root })
  if (result.exitCode !== 0) throw new Error(`benchmark child failed with ${result.exitCode}`)
  return JSON.parse(result.stdout.toString().trim().split("\n").at(-1) ?? "{}") as ChildResult
}

// Warm the page cache (both sides read the same files) and the JIT of rg's side.
rgPass(QUERIES[0] ?? "x")
child()

const cold: Array<number> = []
const warm: Array<number> = []
const refresh: Array<number> = []
const rss: Array<number> = []
const retained: Array<number> = []
const heap: Array<number> = []
const rgTimes: Array<number> = []
let last: ChildResult | undefined
for (let i = 0; i < runs; i++) {
  for (const query of QUERIES) rgTimes.push(rgPass(query))
  last = child()
  cold.push(last.coldMs)
  warm.push(median(last.queryMs))
  refresh.push(median(last.refreshMs))
  rss.push(last.peakRss)
  retained.push(last.retainedRss)
  heap.push(last.retainedHeap)
}

const rgMedian = median(rgTimes)
console.log(`tree: ${corpus} (${fileCount} files), ${os.availableParallelism()} cores, load ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}, ${runs} runs`)
console.log(`index: ${JSON.stringify(last?.stats)}`)
console.log(`rg -l (same keywords, same tree)   median ${ms(rgMedian)}`)
console.log(`cold index                          median ${ms(median(cold))}  = ${ratio(median(cold), rgMedian)} rg   (target ≤ 3×)`)
console.log(`warm query (20 queries)             median ${ms(median(warm))}  (of which refresh ${ms(median(refresh))})   (target ≤ 50 ms)`)
console.log(`peak RSS (build + 20 queries)       median ${mib(median(rss))}, after GC ${mib(median(retained))} (heap + buffers ${mib(median(heap))})`)
console.log("top result per query (last run):")
for (const line of last?.top ?? []) console.log(`  ${line}`)
