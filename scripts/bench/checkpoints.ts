/// <reference types="bun" />
/**
 * The checkpoint store (issue 25) on a generated repository of --files files (default 25,000;
 * nested folders, sizes from ~200 B to ~200 KB with a median near 3 KB, a .gitignore and 2,000
 * ignored files under node_modules/), against a baseline measured in the same run:
 *   - nothing changed: a snapshot, next to `git add -A && git write-tree` with its own GIT_DIR and
 *     GIT_INDEX_FILE on the same tree (targets: ≤ 20 ms and ≤ 1.5× the baseline);
 *   - 10 files changed: a snapshot, next to the same git commands after the same change;
 *   - rewind of a 10-file turn: changes() + restore() (target ≤ 100 ms);
 *   - bytes the store grows by per byte of changed files over 50 turns of 10 edited files each
 *     (target ≤ 1.1×); a changed byte is a byte of a changed file's new content, what a copy of
 *     each changed file would take.
 * Runs interleaved; medians of wall time and of CPU time (this process's for the store, git's own
 * for git: steadier than wall time on a loaded machine).
 * Usage: bun scripts/bench/checkpoints.ts [--files N] [--runs N]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openCheckpointStore, storeDirFor } from "../../src/checkpoints/open.ts"
import { defaultCheckpointSettings, type CheckpointStoreShape } from "../../src/checkpoints/store.ts"
import { flag, median, mib, ms, ratio } from "./measure.ts"

const fileCount = flag("--files", 25_000)
const runs = flag("--runs", 15)

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-checkpoints-")))
const repo = path.join(root, "repo")
const home = path.join(root, "crystal-home")
fs.mkdirSync(home)

// A seeded generator (mulberry32): the same repository every run.
let seed = 42
const random = (): number => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const words = ["const", "return", "function", "import", "export", "value", "result", "items", "=>", "if", "else", "await", "string", "number", "map", "filter", "{", "}", "(", ")", "config", "path", "error", "length"]
const textOf = (bytes: number): string => {
  let text = ""
  while (text.length < bytes) {
    let line = "  ".repeat(Math.floor(random() * 4))
    const count = 3 + Math.floor(random() * 9)
    for (let i = 0; i < count; i++) line += `${words[Math.floor(random() * words.length)]}${random() < 0.3 ? Math.floor(random() * 1000) : ""} `
    text += `${line.trimEnd()}\n`
  }
  return text.slice(0, bytes)
}
/** Log-normal around 3 KB, clipped to 200 B – 200 KB. */
const sizeOf = (): number => Math.min(200_000, Math.max(200, Math.round(Math.exp(Math.log(3000) + 1.1 * Math.sqrt(-2 * Math.log(random() || 1e-9)) * Math.cos(2 * Math.PI * random())))))

const files: Array<string> = []
const generate = (): number => {
  let bytes = 0
  const perFolder = 25
  for (let i = 0; i < fileCount; i++) {
    const folder = Math.floor(i / perFolder)
    const relative = `src/m${Math.floor(folder / 100)}/p${Math.floor(folder / 10) % 10}/d${folder % 10}/file${i % perFolder}.ts`
    const size = sizeOf()
    fs.mkdirSync(path.join(repo, path.dirname(relative)), { recursive: true })
    fs.writeFileSync(path.join(repo, relative), textOf(size))
    files.push(relative)
    bytes += size
  }
  fs.writeFileSync(path.join(repo, ".gitignore"), "node_modules/\n*.log\ndist/\n")
  for (let i = 0; i < 2000; i++) {
    const file = path.join(repo, "node_modules", `pkg${i % 100}`, `index${i}.js`)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, textOf(1000))
  }
  return bytes
}

const gitEnv = {
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  HOME: root,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_DIR: path.join(root, "baseline.git"),
  GIT_WORK_TREE: repo,
  GIT_INDEX_FILE: path.join(root, "baseline.index")
}

interface Sample {
  readonly wall: number
  readonly cpu: number
}

const spawnGit = async (args: ReadonlyArray<string>): Promise<number> => {
  const child = Bun.spawn(["git", ...args], { cwd: repo, env: gitEnv, stdout: "ignore", stderr: "inherit", stdin: "ignore" })
  if ((await child.exited) !== 0) throw new Error(`git ${args.join(" ")} failed`)
  const usage = child.resourceUsage()
  return usage === undefined ? Number.NaN : Number(usage.cpuTime.total) / 1000
}

const gitAddWriteTree = async (): Promise<Sample> => {
  const started = performance.now()
  const cpu = (await spawnGit(["add", "-A"])) + (await spawnGit(["write-tree"]))
  return { wall: performance.now() - started, cpu }
}

const timed = async <A>(run: () => Promise<A>): Promise<Sample & { readonly value: A }> => {
  const started = performance.now()
  const cpu = process.cpuUsage()
  const value = await run()
  const used = process.cpuUsage(cpu)
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000, value }
}

const du = (dir: string): number => {
  let total = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size
  return total
}

/** Edits `count` files as a turn would: a few lines replaced in the middle and one appended. */
const editFiles = (count: number): number => {
  let changed = 0
  for (let i = 0; i < count; i++) {
    const relative = files[Math.floor(random() * files.length)] as string
    const file = path.join(repo, relative)
    const text = fs.readFileSync(file, "utf8")
    const at = Math.floor(text.length / 2)
    const next = `${text.slice(0, at)}\n// edited ${random()}\n${textOf(120)}${text.slice(at + 80)}extra line ${random()}\n`
    fs.writeFileSync(file, next)
    changed += Buffer.byteLength(next)
  }
  return changed
}

const line = (label: string, ours: ReadonlyArray<Sample>, baseline?: ReadonlyArray<Sample>): void => {
  const wall = median(ours.map((s) => s.wall))
  const cpu = median(ours.map((s) => s.cpu))
  let text = `${label.padEnd(40)} wall ${ms(wall).padStart(9)}  cpu ${ms(cpu).padStart(9)}`
  if (baseline !== undefined) {
    const bw = median(baseline.map((s) => s.wall))
    const bc = median(baseline.map((s) => s.cpu))
    text += `   | git add -A && write-tree: wall ${ms(bw)} cpu ${ms(bc)}   ratio wall ${ratio(wall, bw)} cpu ${ratio(cpu, bc)}`
  }
  console.log(text)
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 2200))

const main = async (): Promise<void> => {
  const generateStarted = performance.now()
  const totalBytes = generate()
  console.log(`generated ${fileCount} files (${mib(totalBytes)}) + 2000 ignored, in ${ms(performance.now() - generateStarted)}; ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)}`)
  await spawnGit(["init", "-q"])

  const opened = await Effect.runPromise(openCheckpointStore(repo, home, defaultCheckpointSettings))
  if ("_tag" in opened) throw new Error(opened.reason)
  const store: CheckpointStoreShape = opened
  const snapshot = () => Effect.runPromise(store.snapshot())

  const first = await timed(snapshot)
  const firstGit = await gitAddWriteTree()
  console.log(`first snapshot (every file read and stored)   wall ${ms(first.wall)} cpu ${ms(first.cpu)}   | git add -A && write-tree (fresh index): wall ${ms(firstGit.wall)}`)
  console.log(`store after the first snapshot: ${mib(du(storeDirFor(repo, home)))} (files ${mib(totalBytes)})`)
  await settle()
  await snapshot()
  await gitAddWriteTree()

  const unchanged: Array<Sample> = []
  const unchangedGit: Array<Sample> = []
  for (let i = 0; i < runs; i++) {
    unchanged.push(await timed(snapshot))
    unchangedGit.push(await gitAddWriteTree())
  }
  line("snapshot, nothing changed", unchanged, unchangedGit)

  const tenChanged: Array<Sample> = []
  const tenChangedGit: Array<Sample> = []
  for (let i = 0; i < runs; i++) {
    editFiles(10)
    tenChanged.push(await timed(snapshot))
    tenChangedGit.push(await gitAddWriteTree())
  }
  line("snapshot, 10 files changed", tenChanged, tenChangedGit)

  const rewinds: Array<Sample> = []
  const changesOnly: Array<Sample> = []
  for (let i = 0; i < runs; i++) {
    const before = (await snapshot()).id
    editFiles(10)
    const after = (await snapshot()).id
    const changes = await timed(() => Effect.runPromise(store.changes(before, after)))
    const restore = await timed(() => Effect.runPromise(store.restore(before, changes.value.map((change) => change.path))))
    changesOnly.push(changes)
    rewinds.push({ wall: changes.wall + restore.wall, cpu: changes.cpu + restore.cpu })
  }
  line("changes() of a 10-file turn", changesOnly)
  line("rewind: changes() + restore(), 10 files", rewinds)

  await settle()
  const storeDir = storeDirFor(repo, home)
  let previous = (await snapshot()).id
  const startBytes = du(storeDir)
  const objectsStart = du(path.join(storeDir, "objects"))
  let changedBytes = 0
  for (let turn = 0; turn < 50; turn++) {
    changedBytes += editFiles(10)
    const after = (await snapshot()).id
    await Effect.runPromise(store.keep(`bench/${turn}`, [previous, after], new Date()))
    previous = after
  }
  const grown = du(storeDir) - startBytes
  const objectsGrown = du(path.join(storeDir, "objects")) - objectsStart
  console.log(
    `50 turns × 10 edited files: changed files' bytes ${mib(changedBytes)}, store grew ${mib(grown)} (objects ${mib(objectsGrown)}): ${(grown / changedBytes).toFixed(2)} bytes stored per changed byte (objects alone ${(objectsGrown / changedBytes).toFixed(2)})`
  )
  console.log(`store: ${mib(du(storeDir))}, of which index.json ${mib(fs.statSync(path.join(storeDir, "index.json")).size)}`)
  fs.rmSync(root, { recursive: true, force: true })
}

await main()
