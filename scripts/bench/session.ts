/// <reference types="bun" />
/**
 * Session persistence cost (issue 8): save and load of sessions with 100, 1,000 and 10,000
 * transcript items through the real SessionStore (atomic write, schema decode), next to a bare
 * `JSON.stringify` + `writeFileSync` / `readFileSync` + `JSON.parse` of the same document in the
 * same run; then the peak RSS of `crystal run --resume` on the 10,000-item session, next to a
 * fresh `crystal run`.
 * Usage: npm run build && bun scripts/bench/session.ts
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { TranscriptItem } from "../../src/session/items.ts"
import { makeSessionStore } from "../../src/session/store.ts"
import { startFakeLlm } from "../../test/support/fake-llm/server.ts"
import { crystalBinary, median, ms, peakRss, ratio, requireCrystalBinary, rssText } from "./measure.ts"

requireCrystalBinary()
const home = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-session-"))
const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-ws-")))
const store = makeSessionStore(path.join(home, "sessions"))
fs.mkdirSync(store.dir, { recursive: true })

/** A realistic mix: a user message, a tool call, its ~1 KB result, an answer — repeated. */
const itemsOf = (count: number): Array<TranscriptItem> => {
  const output = "src/engine/turn.ts:42: const message = yield* respond\n".repeat(20)
  const items: Array<TranscriptItem> = []
  for (let i = 0; items.length < count; i++) {
    const cycle: Array<TranscriptItem> = [
      { _tag: "user", id: `u${i}`, text: `Question ${i}: where is the retry delay computed?` },
      {
        _tag: "assistant",
        id: `a${i}`,
        text: "",
        model: "local/bench",
        toolCalls: [{ id: `call_${i}`, name: "grep", arguments: { pattern: "retry", path: "src" } }]
      },
      { _tag: "tool_result", id: `r${i}`, callId: `call_${i}`, name: "grep", text: output, isError: false },
      { _tag: "assistant", id: `b${i}`, text: `The delay is computed in src/providers/retry.ts, answer ${i}.`, model: "local/bench" }
    ]
    items.push(...cycle.slice(0, count - items.length))
  }
  return items
}

const timeIt = async (runs: number, body: () => Promise<unknown> | unknown): Promise<number> => {
  const times: Array<number> = []
  for (let i = 0; i < runs + 2; i++) {
    const started = performance.now()
    await body()
    if (i >= 2) times.push(performance.now() - started)
  }
  return median(times)
}

console.log(`session persistence: medians, ${os.cpus().length} cores`)
console.log("  items    file       save (store)  bare write   ratio   load (store)  bare read    ratio")
const rows: Array<{ count: number; save: number; load: number }> = []
let largestId = ""
for (const count of [100, 1_000, 10_000]) {
  const doc = { ...store.create({ workspace, model: "local/bench", mode: "work", approval: "default" }), items: itemsOf(count) }
  const runs = count >= 10_000 ? 9 : 21
  const save = await timeIt(runs, () => Effect.runPromise(store.save(doc)))
  const file = path.join(store.dir, fs.readdirSync(store.dir).find((name) => name.startsWith(doc.id)) ?? "")
  const bareFile = path.join(home, "bare.json")
  const bareWrite = await timeIt(runs, () => fs.writeFileSync(bareFile, JSON.stringify(doc)))
  const load = await timeIt(runs, () => Effect.runPromise(store.load(doc.id)))
  const bareRead = await timeIt(runs, () => JSON.parse(fs.readFileSync(bareFile, "utf8")))
  rows.push({ count, save, load })
  largestId = doc.id
  console.log(
    `  ${String(count).padStart(6)}  ${`${Math.round(fs.statSync(file).size / 1024)} KiB`.padStart(9)}  ${ms(save).padStart(12)}  ${ms(bareWrite).padStart(10)}  ${ratio(save, bareWrite).padStart(6)}  ${ms(load).padStart(12)}  ${ms(bareRead).padStart(10)}  ${ratio(load, bareRead).padStart(6)}`
  )
}
const perItem = (row: { count: number; save: number; load: number }, key: "save" | "load") => row[key] / row.count
const [small, , large] = rows
if (small !== undefined && large !== undefined) {
  console.log(
    `  per-item cost, 10,000 vs 100 items: save ${ratio(perItem(large, "save"), perItem(small, "save"))}, load ${ratio(perItem(large, "load"), perItem(small, "load"))} (≤ 1× = no worse than linear)`
  )
}

// Peak RSS of a resume of the 10,000-item session, against a fresh run, through the binary.
const fake = await startFakeLlm()
fs.writeFileSync(
  path.join(home, "config.json"),
  JSON.stringify({
    model: "local/bench",
    providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { bench: { contextWindow: 100_000_000 } } } },
    compaction: { auto: false }
  })
)
const env = { ...process.env, CRYSTAL_HOME: home, NO_COLOR: "1" } as Record<string, string>
const fresh: Array<number> = []
const resumed: Array<number> = []
for (let i = 0; i < 3; i++) {
  fake.script([{ text: "ok" }])
  const f = await peakRss([crystalBinary, "run", "say ok"], { cwd: workspace, env })
  fake.script([{ text: "ok" }])
  const r = await peakRss([crystalBinary, "run", "--resume", largestId, "say ok"], { cwd: workspace, env })
  if (f === undefined || r === undefined) break
  fresh.push(f)
  resumed.push(r)
}
await fake.close()
const rssOf = (values: ReadonlyArray<number>) => (values.length === 0 ? undefined : median(values))
console.log(`  peak RSS, crystal run (new session)            ${rssText(rssOf(fresh))}`)
console.log(`  peak RSS, crystal run --resume (10,000 items)  ${rssText(rssOf(resumed))}`)
fs.rmSync(home, { recursive: true, force: true })
fs.rmSync(workspace, { recursive: true, force: true })
