/// <reference types="bun" />
/**
 * A whole rewind (issue 25) on a generated repository of --files files (default 25,000, ~3 KB
 * each in nested folders, git-initialised): a turn that changes 10 files (8 edited, 1 created, 1
 * deleted) is recorded as the engine records it (snapshot before, snapshot after, keep), then
 * rewound through prepareRewind + applyRewind (the snapshot of the workspace as found, the check
 * for files changed outside Crystal, the restore, the snapshot after, the record) — target ≤ 100 ms.
 * Baseline in the same run: the store's own changes() + restore() of the same 10 files, which any
 * rewind pays. Runs interleaved; medians of wall time.
 * Usage: node_modules/.bin/bun scripts/bench/rewind.ts [--files N] [--runs N]
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openCheckpointStore } from "../../src/checkpoints/open.ts"
import { defaultCheckpointSettings, type CheckpointStoreShape } from "../../src/checkpoints/store.ts"
import { applyRewind, prepareRewind } from "../../src/engine/rewind.ts"
import type { CheckpointRecord } from "../../src/session/checkpoint-records.ts"
import type { SessionDocument } from "../../src/session/document.ts"
import { flag, median, ms, ratio } from "./measure.ts"

const fileCount = flag("--files", 25_000)
const runs = flag("--runs", 11)

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-rewind-")))
const repo = path.join(root, "repo")
const home = path.join(root, "crystal-home")
fs.mkdirSync(home)
const line = "export const value = items.map((item) => item.length + 1) // generated\n"
for (let i = 0; i < fileCount; i++) {
  const dir = path.join(repo, `pkg${i % 50}`, `mod${Math.floor(i / 50) % 20}`)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, `file${i}.ts`), `// file ${i}\n${line.repeat(40)}`)
}
execFileSync("git", ["init", "-q"], { cwd: repo })

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)
const opened = await run(openCheckpointStore(repo, home, defaultCheckpointSettings))
if ("_tag" in opened) throw new Error(opened.reason)
const store: CheckpointStoreShape = opened
await run(store.snapshot())

const turnFiles = Array.from({ length: 8 }, (_, k) => path.join(repo, `pkg${k}`, `mod0`, `file${k}.ts`))
const changeTen = (round: number): void => {
  for (const file of turnFiles) fs.appendFileSync(file, `// turn ${round}\n`)
  fs.writeFileSync(path.join(repo, `created-${round}.ts`), `export const created = ${round}\n`)
  fs.rmSync(path.join(repo, "pkg9", "mod0", "file9.ts"), { force: true })
}
const restoreDeleted = (): void => fs.writeFileSync(path.join(repo, "pkg9", "mod0", "file9.ts"), `// file 9\n${line.repeat(40)}`)

const baseDoc = (records: ReadonlyArray<CheckpointRecord>): SessionDocument => ({
  version: 1,
  id: "bench",
  createdAt: "",
  updatedAt: "",
  workspace: repo,
  model: "local/m",
  mode: "work",
  approval: "full",
  items: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  checkpoints: records
})

/** One turn as the engine records it; the workspace is then as the turn left it. */
const recordTurn = async (round: number): Promise<CheckpointRecord> => {
  restoreDeleted()
  const before = await run(store.snapshot())
  changeTen(round)
  const after = await run(store.snapshot())
  const files = await run(store.changes(before.id, after.id))
  await run(store.keep(`bench/${round}`, [before.id, after.id], new Date()))
  return { turn: 1, kind: "turn", messageId: "m", prompt: "change ten files", at: new Date().toISOString(), before: before.id, after: after.id, files }
}

const whole: Array<number> = []
const baseline: Array<number> = []
for (let round = 0; round < runs; round++) {
  {
    const record = await recordTurn(round * 2)
    if (record.files?.length !== 10) throw new Error(`the turn changed ${record.files?.length} files, not 10`)
    const started = performance.now()
    const doc = baseDoc([record])
    const prepared = await run(prepareRewind(store, doc, 1, "files"))
    await run(applyRewind(store, doc, prepared, new Set()))
    whole.push(performance.now() - started)
  }
  {
    const record = await recordTurn(round * 2 + 1)
    const started = performance.now()
    const changed = await run(store.changes(record.before as string, record.after as string))
    await run(store.restore(record.before as string, changed.map((file) => file.path)))
    baseline.push(performance.now() - started)
  }
}

console.log(`rewind of a 10-file turn in a ${fileCount.toLocaleString("en")}-file repository, ${runs} runs (medians)`)
console.log(`  whole rewind (prepare + apply: 2 snapshots, outside-change check, restore, record)  ${ms(median(whole))}  (target ≤ 100 ms)`)
console.log(`  baseline: store.changes + store.restore of the same files                           ${ms(median(baseline))}`)
console.log(`  whole / baseline                                                                     ${ratio(median(whole), median(baseline))}`)
fs.rmSync(root, { recursive: true, force: true })
