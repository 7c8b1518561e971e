/// <reference types="bun" />
/**
 * What MCP costs (issue 15), medians of interleaved runs in one process:
 *   1. `crystal run` to its first request with no servers configured, against a baseline binary
 *      (`--baseline PATH`, an earlier commit's build) — the target is "unchanged within noise";
 *   2. the same with one stdio server (server-everything) configured, next to that server's own
 *      start time: spawn → initialize answered → tools listed, by the bare SDK client — the
 *      target is at most the server's start + 20 ms;
 *   3. per call: echo through Crystal's MCP tool (src/mcp: the Tool value the executor runs,
 *      result conversion and caps included) against the bare SDK client's callTool on the same
 *      kind of server — the target is at most 1.2×.
 * Usage: npm run build && bun scripts/bench/mcp.ts [--runs N] [--calls N] [--baseline PATH]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { makePathFence } from "../../src/approval/path-fence.ts"
import { makeMcpServers } from "../../src/mcp/mcp-servers.ts"
import { planServer } from "../../src/mcp/server-config.ts"
import { makeSpill } from "../../src/tools/spill.ts"
import type { ToolContext } from "../../src/tools/tool.ts"
import { preciseNow } from "../../test/support/fake-llm/recorded-request.ts"
import { startFakeLlm } from "../../test/support/fake-llm/server.ts"
import { everythingServer } from "../../test/support/mcp/servers.ts"
import { crystalBinary, median, ms, ratio, requireCrystalBinary } from "./measure.ts"

const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name)
  return at > 0 ? Number(process.argv[at + 1]) : fallback
}
const runs = flag("--runs", 15)
const calls = flag("--calls", 300)
const baselineAt = process.argv.indexOf("--baseline")
const baseline = baselineAt > 0 ? path.resolve(process.argv[baselineAt + 1] ?? "") : undefined
if (baseline !== undefined && !fs.existsSync(baseline)) throw new Error(`--baseline: ${baseline} does not exist`)
const warmup = 2
const node = process.execPath.endsWith("bun") ? (Bun.which("node") ?? "node") : process.execPath
const serverArgv = [node, everythingServer, "stdio"]

requireCrystalBinary()
const fake = await startFakeLlm()
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-mcp-ws-"))
const homeWith = (extra: Record<string, unknown>) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-mcp-home-"))
  fs.writeFileSync(
    path.join(home, "config.json"),
    JSON.stringify({ model: "local/bench", providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { bench: {} } } }, ...extra })
  )
  return home
}
const plainHome = homeWith({})
const mcpHome = homeWith({ mcpServers: { everything: { command: serverArgv[0], args: serverArgv.slice(1) } } })

const timeFirstRequest = async (binary: string, home: string): Promise<number> => {
  fake.script([{ text: "ok" }])
  const seen = fake.requests.length
  const started = preciseNow()
  const child = Bun.spawn([binary, "run", "say ok"], { cwd: workspace, env: { ...process.env, CRYSTAL_HOME: home, NO_COLOR: "1" }, stdout: "ignore", stderr: "ignore", stdin: "ignore" })
  const request = await fake.waitForRequest(seen + 1, { timeoutMs: 20_000 })
  if ((await child.exited) !== 0) throw new Error(`${binary} run exited with an error`)
  return request.receivedAt - started
}

/** The server's own start: spawn → initialize answered → tools listed, by the bare SDK client. */
const timeServerStart = async (): Promise<number> => {
  const started = preciseNow()
  const client = new Client({ name: "bench", version: "1" })
  await client.connect(new StdioClientTransport({ command: serverArgv[0] ?? "node", args: serverArgv.slice(1), stderr: "ignore" }))
  await client.listTools()
  const elapsed = preciseNow() - started
  await client.close()
  return elapsed
}

const times = { plain: [] as Array<number>, base: [] as Array<number>, withServer: [] as Array<number>, server: [] as Array<number> }
for (let i = 0; i < warmup + runs; i++) {
  const plain = await timeFirstRequest(crystalBinary, plainHome)
  const base = baseline === undefined ? undefined : await timeFirstRequest(baseline, plainHome)
  const withServer = await timeFirstRequest(crystalBinary, mcpHome)
  const server = await timeServerStart()
  if (i < warmup) continue
  times.plain.push(plain)
  if (base !== undefined) times.base.push(base)
  times.withServer.push(withServer)
  times.server.push(server)
}

// Per call: the same echo through both clients, each against its own server, interleaved in blocks.
const bare = new Client({ name: "bench", version: "1" })
await bare.connect(new StdioClientTransport({ command: serverArgv[0] ?? "node", args: serverArgv.slice(1), stderr: "ignore" }))
const scope = Effect.runSync(Scope.make())
const plan = planServer("everything", { command: serverArgv[0] ?? "node", args: serverArgv.slice(1) }, { workspace, env: process.env, baseEnv: { PATH: process.env["PATH"] ?? "" } })
const mcp = await Effect.runPromise(makeMcpServers({ plans: [plan], roots: () => [workspace] }).pipe(Scope.extend(scope)))
await Effect.runPromise(mcp.beforeTurn)
const echo = mcp.tools().find((tool) => tool.name === "mcp__everything__echo")
if (echo === undefined) throw new Error("server-everything offers no echo tool")
const spillDir = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-mcp-spill-"))
const context: ToolContext = { fence: makePathFence(workspace, [{ dir: spillDir, access: "read" }]), sessionId: "bench", spill: makeSpill(spillDir), spillDir }
const args = { message: "hello from the bench" }
const perCall = { bare: [] as Array<number>, crystal: [] as Array<number> }
const block = 20
for (let done = 0; done < calls + block; done += block) {
  let started = preciseNow()
  for (let i = 0; i < block; i++) await bare.callTool({ name: "echo", arguments: args })
  const bareMs = (preciseNow() - started) / block
  started = preciseNow()
  // As the executor runs it: inside the turn's fiber, not one runtime entry per call.
  await Effect.runPromise(Effect.forEach(Array.from({ length: block }), () => echo.run(args as never, context), { discard: true }))
  const crystalMs = (preciseNow() - started) / block
  if (done < block) continue
  perCall.bare.push(bareMs)
  perCall.crystal.push(crystalMs)
}
await bare.close()
await Effect.runPromise(Scope.close(scope, Exit.void))
await fake.close()
for (const dir of [workspace, plainHome, mcpHome, spillDir]) fs.rmSync(dir, { recursive: true, force: true })

const t = { plain: median(times.plain), withServer: median(times.withServer), server: median(times.server) }
console.log(`mcp: ${runs} interleaved start-up runs, ${calls} calls per client (medians), ${os.cpus().length} cores`)
console.log(`  crystal run → first request, no servers      ${ms(t.plain).padStart(9)}`)
if (baseline !== undefined) {
  const b = median(times.base)
  console.log(`    baseline ${path.relative(process.cwd(), baseline)}`.padEnd(48) + `${ms(b).padStart(9)}  this build ${t.plain >= b ? "+" : ""}${(((t.plain - b) / b) * 100).toFixed(1)}%`)
}
console.log(`  crystal run → first request, one stdio server ${ms(t.withServer).padStart(8)}  +${ms(t.withServer - t.plain)} over no servers`)
console.log(`  the server's own start (bare SDK client)      ${ms(t.server).padStart(8)}  the first request comes ${ms(t.withServer - t.server)} after it would be ready (target ≤ 20 ms)`)
console.log(`  echo per call: bare SDK client               ${ms(median(perCall.bare)).padStart(9)}`)
console.log(`  echo per call: crystal's MCP tool            ${ms(median(perCall.crystal)).padStart(9)}  ${ratio(median(perCall.crystal), median(perCall.bare))} the bare client (target ≤ 1.2×)`)
