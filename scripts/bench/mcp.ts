/// <reference types="bun" />
/**
 * What MCP costs (issue 15), medians of interleaved runs in one process:
 *   1. `crystal run` to its first request with no servers configured, against a baseline binary
 *      (`--baseline PATH`, an earlier commit's build) — the target is "unchanged within noise";
 *   2. the same with one stdio server (server-everything) configured, next to that server's own
 *      start time: spawn → initialize answered → tools listed, by the bare SDK client — the
 *      target is at most the server's start + 20 ms;
 *   3. per call: echo through Crystal's MCP tool (src/mcp: the Tool value the executor runs,
 *      its call timer, result conversion and caps included) against the SDK client's callTool,
 *      bare, on the same connection, and against a separate bare SDK client with its own server
 *      — the target is at most 1.2×.
 * Usage: npm run build && bun scripts/bench/mcp.ts [--runs N] [--calls N] [--baseline PATH]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { makePathFence } from "../../src/approval/path-fence.ts"
import { shellEnvironment } from "../../src/bash/shell-env.ts"
import { makeServerCalls } from "../../src/mcp/call-timers.ts"
import { connectServer } from "../../src/mcp/connect.ts"
import { makeMcpTool } from "../../src/mcp/mcp-tools.ts"
import { planServer } from "../../src/mcp/server-config.ts"
import { makeSpill } from "../../src/tools/spill.ts"
import type { ToolContext } from "../../src/tools/tool.ts"
import { preciseNow } from "../../test/support/fake-llm/recorded-request.ts"
import { startFakeLlm } from "../../test/support/fake-llm/server.ts"
import { everythingServer } from "../../test/support/mcp/servers.ts"
import { crystalBinary, flag, flagText, median, ms, ratio, requireCrystalBinary } from "./measure.ts"
import { noSecrets } from "../../src/secrets/secrets.ts"

const runs = flag("--runs", 15)
const calls = flag("--calls", 1000)
const baselineText = flagText("--baseline")
const baseline = baselineText === undefined ? undefined : path.resolve(baselineText)
if (baseline !== undefined && !fs.existsSync(baseline)) throw new Error(`--baseline: ${baseline} does not exist`)
const warmup = 2
const us = (milliseconds: number): string => `${Math.round(milliseconds * 1000)} µs`
// server-everything runs on the bench's own Bun, for Crystal and the bare clients alike.
const serverArgv = [process.execPath, everythingServer, "stdio"]
/**
 * The environment Crystal gives a stdio server (the shell's: its own minus provider keys), given
 * to the bare client's server too. The SDK's default passes only HOME, PATH and a few more: a
 * variable such as NODE_EXTRA_CA_CERTS (set on the build machine) then goes missing, and it alone
 * adds ~100 ms to a Node server's start, which the comparison would charge to Crystal.
 */
const serverEnv = shellEnvironment({}, process.env)

requireCrystalBinary()
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-mcp-ws-"))

// Per call, two baselines: the SDK client Crystal's tool wraps, called bare on the same connection
// (same server process: what Crystal's layer costs), and a separate bare SDK client with the SDK's
// own stdio transport and its own server (the issue's "calling the same server with the bare SDK
// client"; two server processes differ a little from each other, whichever client is faster).
// Blocks of calls alternate (which goes first alternates too), each call timed alone; Crystal's
// calls run inside one fiber, as the executor runs them inside the turn's.
const separate = new Client({ name: "bench", version: "1" })
await separate.connect(new StdioClientTransport({ command: serverArgv[0] ?? "node", args: serverArgv.slice(1), env: serverEnv, stderr: "ignore" }))
const plan = planServer("everything", { command: serverArgv[0] ?? "node", args: serverArgv.slice(1) }, { workspace, env: process.env, baseEnv: serverEnv })
if (typeof plan.endpoint === "string") throw new Error(plan.endpoint)
const connection = await connectServer(plan.endpoint, { timeoutMs: 20_000, roots: () => [workspace], onToolsChanged: () => {}, onClosed: () => {}, signal: new AbortController().signal })
const echoSpec = (await connection.listTools()).find((tool) => tool.name === "echo")
if (echoSpec === undefined) throw new Error("server-everything offers no echo tool")
const echo = makeMcpTool(plan, connection.client, echoSpec, makeServerCalls(), noSecrets)
const spillDir = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-mcp-spill-"))
const context: ToolContext = { fence: makePathFence(workspace, [{ dir: spillDir, access: "read" }]), sessionId: "bench", secrets: noSecrets, spill: makeSpill(spillDir), spillDir }
const args = { message: "hello from the bench" }
const perCall = { same: [] as Array<number>, separate: [] as Array<number>, crystal: [] as Array<number> }
const block = 10
const timeBare = async (client: Client, into: Array<number>) => {
  for (let i = 0; i < block; i++) {
    const started = preciseNow()
    await client.callTool({ name: "echo", arguments: args })
    into.push(preciseNow() - started)
  }
}
const timeCrystal = (into: Array<number>) =>
  Effect.runPromise(
    Effect.forEach(
      Array.from({ length: block }),
      () => {
        const started = preciseNow()
        return Effect.map(echo.run(args as never, context), () => void into.push(preciseNow() - started))
      },
      { discard: true }
    )
  )
for (let done = 0; done < calls + 100; done += block) {
  const into = done < 100 ? { same: [], separate: [], crystal: [] } : perCall
  const steps = [() => timeBare(connection.client, into.same), () => timeCrystal(into.crystal), () => timeBare(separate, into.separate)]
  for (const step of (done / block) % 2 === 0 ? steps : steps.reverse()) await step()
}
await separate.close()
await connection.close()

const fake = await startFakeLlm()
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
  await client.connect(new StdioClientTransport({ command: serverArgv[0] ?? "node", args: serverArgv.slice(1), env: serverEnv, stderr: "ignore" }))
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
const crystalCall = median(perCall.crystal)
console.log(`  echo per call: the SDK client, bare           ${us(median(perCall.same)).padStart(8)}  (the connection Crystal's tool uses)`)
console.log(`  echo per call: crystal's MCP tool             ${us(crystalCall).padStart(8)}  ${ratio(crystalCall, median(perCall.same))} the bare client on it (target ≤ 1.2×)`)
console.log(`  echo per call: a separate bare SDK client     ${us(median(perCall.separate)).padStart(8)}  crystal's tool ${ratio(crystalCall, median(perCall.separate))} it`)
