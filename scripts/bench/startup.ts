/// <reference types="bun" />
/**
 * Start-up cost of the compiled binary, next to an empty compiled Bun program measured in the
 * same run (runs are interleaved so machine noise hits both alike):
 *   - `crystal --version`: wall time to exit, and peak RSS;
 *   - `crystal run`: wall time until its first request reaches a local fake LLM server, and the
 *     peak RSS of the whole run;
 *   - `crystal run`: wall time until the provider's connection is accepted (runs of their own,
 *     through a TCP pass-through that notes the accept, so the figures above stay without it).
 * With `--baseline PATH`, another crystal binary (an earlier commit's build) is measured in the
 * same interleaved runs, and the change is printed against it. With `--plugin`, the run is also
 * measured with one trivial plugin in the home (an onPrompt hook in a .mjs), interleaved too.
 * Usage: npm run build && bun scripts/bench/startup.ts [--runs N] [--baseline PATH] [--plugin]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { preciseNow } from "../../test/support/fake-llm/recorded-request.ts"
import { startFakeLlm } from "../../test/support/fake-llm/server.ts"
import { compileEmptyProgram, crystalBinary, flag, flagText, median, ms, peakRss, ratio, requireCrystalBinary, rssText, timeProcess } from "./measure.ts"
import { startTcpTap } from "./tcp-tap.ts"

const runs = flag("--runs", 30)
const baselineText = flagText("--baseline")
const baseline = baselineText === undefined ? undefined : path.resolve(baselineText)
if (baseline !== undefined && !fs.existsSync(baseline)) throw new Error(`--baseline: ${baseline} does not exist`)
const warmup = 3
const withPlugin = process.argv.includes("--plugin")

requireCrystalBinary()
const empty = compileEmptyProgram()

const home = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-home-"))
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-ws-"))
fs.writeFileSync(path.join(workspace, "README.md"), "# bench\n")
const fake = await startFakeLlm()
fs.writeFileSync(
  path.join(home, "config.json"),
  JSON.stringify({
    model: "local/bench",
    providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { bench: {} } } }
  })
)
const env = { ...process.env, CRYSTAL_HOME: home, NO_COLOR: "1" } as Record<string, string>
const tap = await startTcpTap(Number(new URL(fake.url).port))
const tapHome = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-tap-home-"))
fs.writeFileSync(
  path.join(tapHome, "config.json"),
  JSON.stringify({ model: "local/bench", providers: { local: { protocol: "openai-chat", baseURL: `${tap.url}/v1`, models: { bench: {} } } } })
)
const tapEnv = { ...env, CRYSTAL_HOME: tapHome }
const pluginHome = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-plugin-home-"))
fs.copyFileSync(path.join(home, "config.json"), path.join(pluginHome, "config.json"))
fs.mkdirSync(path.join(pluginHome, "plugins", "trivial"), { recursive: true })
fs.writeFileSync(path.join(pluginHome, "plugins", "trivial", "plugin.json"), '{ "entry": "index.mjs", "enabled": true }\n')
fs.writeFileSync(path.join(pluginHome, "plugins", "trivial", "index.mjs"), 'export default { hooks: { onPrompt: () => "Answer briefly." } }\n')
const pluginEnv = { ...env, CRYSTAL_HOME: pluginHome }
const runArgv = [crystalBinary, "run", "say ok"]

/** Spawn → the fake server has the request in hand. The child then finishes its turn. */
const timeFirstRequest = async (binary = crystalBinary, runEnv = env): Promise<number> => {
  fake.script([{ text: "ok" }])
  const seen = fake.requests.length
  const started = preciseNow()
  const child = Bun.spawn([binary, ...runArgv.slice(1)], { cwd: workspace, env: runEnv, stdout: "ignore", stderr: "ignore", stdin: "ignore" })
  const request = await fake.waitForRequest(seen + 1, { timeoutMs: 10_000 })
  const code = await child.exited
  if (code !== 0) throw new Error(`crystal run exited with ${code}`)
  return request.receivedAt - started
}

/** Spawn → the provider's connection is accepted (through the tap). The child then finishes its turn. */
const timeConnection = async (binary: string): Promise<number> => {
  fake.script([{ text: "ok" }])
  const seen = fake.requests.length
  const accepted = tap.accepted.length
  const started = preciseNow()
  const child = Bun.spawn([binary, ...runArgv.slice(1)], { cwd: workspace, env: tapEnv, stdout: "ignore", stderr: "ignore", stdin: "ignore" })
  await fake.waitForRequest(seen + 1, { timeoutMs: 10_000 })
  const code = await child.exited
  if (code !== 0) throw new Error(`crystal run exited with ${code}`)
  const at = tap.accepted[accepted]
  if (at === undefined) throw new Error("the request came without a connection through the tap")
  return at - started
}

const times = { empty: [] as Array<number>, version: [] as Array<number>, run: [] as Array<number>, connect: [] as Array<number>, plugin: [] as Array<number> }
const baseTimes = { version: [] as Array<number>, run: [] as Array<number>, connect: [] as Array<number> }
for (let i = 0; i < warmup + runs; i++) {
  const e = await timeProcess([empty])
  const v = await timeProcess([crystalBinary, "--version"])
  // With --plugin the two runs swap places every other round, so neither always goes first.
  const early = withPlugin && i % 2 === 1 ? await timeFirstRequest(crystalBinary, pluginEnv) : undefined
  const r = await timeFirstRequest()
  const bv = baseline === undefined ? undefined : await timeProcess([baseline, "--version"])
  const br = baseline === undefined ? undefined : await timeFirstRequest(baseline)
  const rp = early ?? (withPlugin ? await timeFirstRequest(crystalBinary, pluginEnv) : undefined)
  const c = await timeConnection(crystalBinary)
  const bc = baseline === undefined ? undefined : await timeConnection(baseline)
  if (i < warmup) continue
  times.connect.push(c)
  if (rp !== undefined) times.plugin.push(rp)
  times.empty.push(e)
  times.version.push(v)
  times.run.push(r)
  if (bv !== undefined && br !== undefined && bc !== undefined) {
    baseTimes.version.push(bv)
    baseTimes.run.push(br)
    baseTimes.connect.push(bc)
  }
}
const rss = { empty: [] as Array<number>, version: [] as Array<number>, run: [] as Array<number> }
for (let i = 0; i < 5; i++) {
  const e = await peakRss([empty])
  const v = await peakRss([crystalBinary, "--version"])
  fake.script([{ text: "ok" }])
  const r = await peakRss(runArgv, { cwd: workspace, env })
  if (e === undefined || v === undefined || r === undefined) break
  rss.empty.push(e)
  rss.version.push(v)
  rss.run.push(r)
}
await tap.close()
await fake.close()
fs.rmSync(home, { recursive: true, force: true })
fs.rmSync(tapHome, { recursive: true, force: true })
fs.rmSync(pluginHome, { recursive: true, force: true })
fs.rmSync(workspace, { recursive: true, force: true })
fs.rmSync(path.dirname(empty), { recursive: true, force: true })

const medianOrUndefined = (values: ReadonlyArray<number>) => (values.length === 0 ? undefined : median(values))
const t = { empty: median(times.empty), version: median(times.version), run: median(times.run), connect: median(times.connect) }
const m = { empty: medianOrUndefined(rss.empty), version: medianOrUndefined(rss.version), run: medianOrUndefined(rss.run) }

console.log(`startup: ${runs} interleaved runs each (medians), ${os.cpus().length} cores`)
console.log(`  empty Bun binary             ${ms(t.empty).padStart(9)}            peak RSS ${rssText(m.empty)}`)
console.log(`  crystal --version            ${ms(t.version).padStart(9)}  ${ratio(t.version, t.empty).padStart(6)} empty  peak RSS ${rssText(m.version)}`)
console.log(`  crystal run → first request  ${ms(t.run).padStart(9)}  ${ratio(t.run, t.empty).padStart(6)} empty  peak RSS ${rssText(m.run)} (whole run)`)
console.log(`  crystal run → connection     ${ms(t.connect).padStart(9)}  ${ratio(t.connect, t.empty).padStart(6)} empty  (the provider's TCP connection accepted)`)
if (withPlugin) {
  const p = median(times.plugin)
  console.log(`  … with one trivial plugin    ${ms(p).padStart(9)}  ${p >= t.run ? "+" : ""}${ms(p - t.run)} over the run without (target ≤ +5 ms)`)
}
if (baseline !== undefined) {
  const b = { version: median(baseTimes.version), run: median(baseTimes.run), connect: median(baseTimes.connect) }
  const change = (now: number, before: number) => `${now >= before ? "+" : ""}${(((now - before) / before) * 100).toFixed(1)}%`
  const line = (name: string, before: number, now: number) =>
    `    ${name.padEnd(24)} ${ms(before).padStart(9)}  ${ratio(before, t.empty).padStart(6)} empty  this build ${change(now, before)}`
  console.log(`  baseline ${path.relative(process.cwd(), baseline)}:`)
  console.log(line("--version", b.version, t.version))
  console.log(line("run → first request", b.run, t.run))
  console.log(line("run → connection", b.connect, t.connect))
}
