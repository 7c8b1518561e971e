/// <reference types="bun" />
/**
 * `crystal acp` start-up: wall time from spawn to its answer to `initialize` (written on stdin at
 * spawn, as an editor does), against `crystal --version` to exit, measured in the same
 * interleaved runs (target ≤ 1.5×). Also spawn → the answer to session/new (a session ready for
 * a prompt: config read, model resolved, tools made), for reference.
 * Usage: npm run build && bun scripts/bench/acp.ts [--runs N]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { crystalBinary, flag, median, ms, ratio, requireCrystalBinary, timeProcess } from "./measure.ts"

const runs = flag("--runs", 30)
const warmup = 3
requireCrystalBinary()

const home = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-acp-home-"))
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-acp-ws-"))
// A provider is configured (session/new resolves it) but never asked: no prompt is sent.
fs.writeFileSync(
  path.join(home, "config.json"),
  JSON.stringify({ model: "local/bench", providers: { local: { protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", models: { bench: {} } } } })
)
const env = { ...process.env, CRYSTAL_HOME: home, NO_COLOR: "1" } as Record<string, string>

const line = (message: object) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`
const initialize = line({ id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })
const sessionNew = line({ id: 1, method: "session/new", params: { cwd: workspace, mcpServers: [] } })

/** Spawn → the answer to the last of `requests`, each sent once the one before is answered (as the SDK requires). */
const timeAnswers = async (requests: ReadonlyArray<string>): Promise<number> => {
  const started = performance.now()
  const child = Bun.spawn([crystalBinary, "acp"], { cwd: workspace, env, stdin: "pipe", stdout: "pipe", stderr: "ignore" })
  const decoder = new TextDecoder()
  let seen = ""
  let next = 0
  const send = async () => {
    child.stdin.write(requests[next] ?? "")
    await child.stdin.flush()
  }
  await send()
  let at: number | undefined
  for await (const chunk of child.stdout) {
    seen += decoder.decode(chunk, { stream: true })
    if (!seen.split("\n").some((text) => text.includes(`"id":${next}`) && text.includes('"result"'))) continue
    next++
    if (next === requests.length) {
      at = performance.now() - started
      break
    }
    await send()
  }
  await child.stdin.end()
  await child.exited
  if (at === undefined) throw new Error(`crystal acp did not answer: ${seen}`)
  return at
}

const times = { version: [] as Array<number>, initialize: [] as Array<number>, session: [] as Array<number> }
for (let i = 0; i < warmup + runs; i++) {
  const v = await timeProcess([crystalBinary, "--version"])
  const a = await timeAnswers([initialize])
  const s = await timeAnswers([initialize, sessionNew])
  if (i < warmup) continue
  times.version.push(v)
  times.initialize.push(a)
  times.session.push(s)
}
fs.rmSync(home, { recursive: true, force: true })
fs.rmSync(workspace, { recursive: true, force: true })

const t = { version: median(times.version), initialize: median(times.initialize), session: median(times.session) }
console.log(`acp: ${runs} interleaved runs each (medians), ${os.cpus().length} cores`)
console.log(`  crystal --version → exit          ${ms(t.version).padStart(9)}`)
console.log(`  crystal acp → initialize answered ${ms(t.initialize).padStart(9)}  ${ratio(t.initialize, t.version).padStart(6)} --version (target ≤ 1.50×)`)
console.log(`  crystal acp → session/new answered ${ms(t.session).padStart(8)}  ${ratio(t.session, t.version).padStart(6)} --version`)
