/// <reference types="bun" />
/**
 * Subagents (issue 26), through the compiled binary against the fake model in this process:
 *  1. What starting a child costs: from the end of the response holding a `task` call to the
 *     child's first model request, against the same gap for a cheap tool call (`todoread`) and
 *     the parent's next request, measured alternately in the same run (target: ≤ 5 ms more).
 *  2. Four children in one step against the same four one after another (agents.maxParallel 1),
 *     each child making two requests of a fixed latency (target: wall ≤ 0.35× of serial).
 * Usage: npm run build && bun scripts/bench/agents.ts [--runs N] [--latency MS]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { scriptByAgent, systemTextOf } from "../../test/support/fake-llm/by-agent.ts"
import { startFakeLlm, type RecordedRequest } from "../../test/support/fake-llm/server.ts"
import { crystalBinary, flag, median, ms, ratio, requireCrystalBinary } from "./measure.ts"

requireCrystalBinary()
const runs = flag("--runs", 15)
const latency = flag("--latency", 150)
const fake = await startFakeLlm()

const sandbox = (config: Record<string, unknown>, agents: ReadonlyArray<string>) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-agents-"))
  const home = path.join(root, "home")
  const workspace = path.join(root, "workspace")
  fs.mkdirSync(home)
  fs.mkdirSync(path.join(workspace, ".crystal", "agents"), { recursive: true })
  fs.writeFileSync(path.join(workspace, "notes.txt"), "notes\n")
  for (const name of agents) {
    fs.writeFileSync(path.join(workspace, ".crystal", "agents", `${name}.md`), `---\nname: ${name}\ndescription: bench agent\n---\nMARK-${name}: a bench agent.\n`)
  }
  const provider = { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { "test-model": { contextWindow: 32768 } } }
  fs.writeFileSync(path.join(home, "config.json"), JSON.stringify({ model: "local/test-model", providers: { local: provider }, ...config }))
  return { workspace, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: root, CRYSTAL_HOME: home, NO_COLOR: "1" } }
}

const run = async (box: ReturnType<typeof sandbox>): Promise<void> => {
  const child = Bun.spawn([crystalBinary, "run", "--format", "json", "--approval", "full", "go"], { cwd: box.workspace, env: box.env, stdout: "ignore", stderr: "pipe" })
  if ((await child.exited) !== 0) throw new Error(`crystal run failed: ${await new Response(child.stderr).text()}`)
}

/** Requests of this run only. */
const since = (from: number): ReadonlyArray<RecordedRequest> => fake.requests.slice(from)

const startCost = async () => {
  const cheap = sandbox({}, [])
  const tasked = sandbox({}, ["bench"])
  const gaps = { tool: [] as Array<number>, child: [] as Array<number> }
  for (let i = 0; i < runs + 2; i++) {
    let from = fake.requests.length
    fake.script([{ toolCalls: [{ name: "todoread", arguments: {} }] }, { text: "done" }])
    await run(cheap)
    const [first, second] = since(from)
    const toolGap = (second?.receivedAt ?? 0) - (await (first as RecordedRequest).closed).at
    from = fake.requests.length
    scriptByAgent(fake, {
      root: [{ toolCalls: [{ name: "task", arguments: { description: "bench", prompt: "answer", agent: "bench" } }] }, { text: "done" }],
      agents: { "MARK-bench": [{ text: "child answer" }] }
    })
    await run(tasked)
    const requests = since(from)
    const childFirst = requests.find((request) => systemTextOf(request).includes("MARK-bench"))
    const childGap = (childFirst?.receivedAt ?? 0) - (await (requests[0] as RecordedRequest).closed).at
    if (i >= 2) {
      gaps.tool.push(toolGap)
      gaps.child.push(childGap)
    }
  }
  return { tool: median(gaps.tool), child: median(gaps.child) }
}

const names = ["c1", "c2", "c3", "c4"]

/** From the end of the parent's response with the four task calls to its next request. */
const fourChildren = async (maxParallel: number): Promise<number> => {
  const box = sandbox({ agents: { maxParallel } }, names)
  const walls: Array<number> = []
  for (let i = 0; i < Math.max(3, Math.ceil(runs / 3)) + 1; i++) {
    const from = fake.requests.length
    scriptByAgent(fake, {
      root: [{ toolCalls: names.map((name) => ({ name: "task", arguments: { description: name, prompt: "look", agent: name } })) }, { text: "done" }],
      agents: Object.fromEntries(
        names.map((name) => [`MARK-${name}`, [{ delayMs: latency, toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] }, { delayMs: latency, text: `${name} done` }]])
      )
    })
    await run(box)
    const requests = since(from)
    const parent = requests.filter((request) => !names.some((name) => systemTextOf(request).includes(`MARK-${name}`)))
    const wall = (parent[1]?.receivedAt ?? 0) - (await (parent[0] as RecordedRequest).closed).at
    if (i >= 1) walls.push(wall)
  }
  return median(walls)
}

const cost = await startCost()
console.log(`starting a child (median of ${runs} runs each, alternating)`)
console.log(`  response end → next request after a todoread call   ${ms(cost.tool)}`)
console.log(`  response end → the child's first request (task)     ${ms(cost.child)}`)
console.log(`  → a child costs ${ms(cost.child - cost.tool)} more to start (target ≤ 5 ms)`)
const parallel = await fourChildren(4)
const serial = await fourChildren(1)
console.log(`four children, two requests each at ${latency} ms fixed latency`)
console.log(`  at once (maxParallel 4)     ${ms(parallel)}`)
console.log(`  one after another (1)       ${ms(serial)}`)
console.log(`  → parallel wall ${ratio(parallel, serial)} of serial (target ≤ 0.35×)`)
await fake.close()
