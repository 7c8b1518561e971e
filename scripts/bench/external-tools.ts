/// <reference types="bun" />
/**
 * External tools' own cost, against baselines measured in the same run (interleaved, so machine
 * noise hits both alike):
 *   - an exec tool call (classify + run: argv build, data folders, process group, stdin JSON,
 *     stdout/stderr capture, leftover check, output caps) vs a bare node:child_process spawn of
 *     the same argv with stdin written and stdout read. Target ≤ 1.3×.
 *   - a module tool call (classify + run: host context, budget, result parsing) vs calling the
 *     module's run function directly. Target: ≤ 1 ms of overhead.
 * Usage: bun scripts/bench/external-tools.ts [--runs N]
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { makePathFence } from "../../src/approval/path-fence.ts"
import { runArgv } from "../../src/bash/run-argv.ts"
import { makeExternalTools } from "../../src/external-tools/session-tools.ts"
import { reservedToolNames } from "../../src/tools/tool-names.ts"
import type { Tool, ToolContext } from "../../src/tools/tool.ts"
import { flag, median, ms, ratio } from "./measure.ts"
import { noSecrets } from "../../src/secrets/secrets.ts"

const runs = flag("--runs", 200)

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-xt-")))
const home = path.join(root, "home")
const workspace = path.join(root, "workspace")
fs.mkdirSync(workspace, { recursive: true })
const setDir = (name: string) => {
  const dir = path.join(home, "tools", name)
  fs.mkdirSync(dir, { recursive: true })
  return dir
}
const execDir = setDir("echoes")
fs.writeFileSync(
  path.join(execDir, "tools.json"),
  JSON.stringify({ tools: [{ name: "cat_args", description: "cat", parameters: { type: "object", properties: { text: { type: "string" } } }, command: ["/bin/cat"] }] })
)
const moduleDir = setDir("mod")
fs.writeFileSync(path.join(moduleDir, "tools.json"), JSON.stringify({ runner: "module", entry: "tools.mjs" }))
fs.writeFileSync(
  path.join(moduleDir, "tools.mjs"),
  `export const run = (args) => ({ text: "hello " + args.text })
export const tools = [{ definition: { name: "hello", description: "hello", parameters: { type: "object", properties: { text: { type: "string" } } } }, run }]
`
)

const control = await Effect.runPromise(
  makeExternalTools({
    home,
    workspace,
    enabled: true,
    assumeTrust: true,
    asker: { confirm: () => Effect.succeed(false) },
    reserved: reservedToolNames,
    approval: Effect.succeed("full"),
    env: process.env,
    redactor: { secrets: Effect.succeed(noSecrets) }
  })
)
const tool = (name: string): Tool => {
  const found = control.tools().find((candidate) => candidate.name === name)
  if (found === undefined) throw new Error(`no ${name}: ${control.notes().join("; ")}`)
  return found
}
const context: ToolContext = { fence: makePathFence(workspace), sessionId: "bench", secrets: noSecrets, spill: () => Effect.succeed(path.join(root, "spill.txt")) }
const args = { text: "x".repeat(64) }

const callTool = (target: Tool) => () =>
  Effect.runPromise(
    Effect.flatMap(target.classify(args as never, context), () => target.run(args as never, context)).pipe(
      Effect.tap((output) => (output.isError === true ? Effect.die(new Error(output.text)) : Effect.void))
    )
  )

const bareExec = (): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn("/bin/cat", [], { cwd: workspace, stdio: ["pipe", "pipe", "pipe"] })
    const chunks: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
    child.stderr.on("data", () => {})
    child.on("error", reject)
    child.on("close", () => resolve())
    child.stdin.end(JSON.stringify(args))
  })

const moduleUrl = `file://${path.join(moduleDir, "tools.mjs")}`
const direct = (await import(moduleUrl)) as { run: (input: typeof args) => unknown }
const bareModule = async (): Promise<void> => {
  await direct.run(args)
}

const time = async (body: () => Promise<unknown>): Promise<number> => {
  const started = performance.now()
  await body()
  return performance.now() - started
}

const compare = async (label: string, measured: () => Promise<unknown>, baseline: () => Promise<unknown>, count: number) => {
  for (let i = 0; i < 10; i++) {
    await measured()
    await baseline()
  }
  const a: Array<number> = []
  const b: Array<number> = []
  for (let i = 0; i < count; i++) {
    a.push(await time(measured))
    b.push(await time(baseline))
  }
  return { label, tool: median(a), bare: median(b) }
}

const processOnly = () => Effect.runPromise(runArgv({ file: "/bin/cat", args: [], cwd: workspace, env: process.env, stdin: JSON.stringify(args), timeoutSeconds: 60 }))
const layer = await compare("its process layer alone (run-argv.ts: process group, tag, capture, group check) vs bare spawn", processOnly, bareExec, runs)
const exec = await compare("exec tool call vs bare spawn of the same argv", callTool(tool("cat_args")), bareExec, runs)
const module = await compare("module tool call vs calling its run()", callTool(tool("hello")), bareModule, runs * 10)

console.log(`${exec.label} (${runs} runs, medians)`)
console.log(`  tool ${ms(exec.tool)}  bare ${ms(exec.bare)}  ratio ${ratio(exec.tool, exec.bare)}  (target ≤ 1.30×)`)
console.log(`${layer.label}`)
console.log(`  run-argv ${ms(layer.tool)}  bare ${ms(layer.bare)}  ratio ${ratio(layer.tool, layer.bare)}`)
console.log(`${module.label} (${runs * 10} runs, medians)`)
console.log(`  tool ${(module.tool * 1000).toFixed(1)} µs  bare ${(module.bare * 1000).toFixed(1)} µs  overhead ${((module.tool - module.bare) * 1000).toFixed(1)} µs  (target ≤ 1000 µs)`)
fs.rmSync(root, { recursive: true, force: true })
