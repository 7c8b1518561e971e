/// <reference types="bun" />
/**
 * The OS sandbox's cost per command: the bash tool running a few read-only commands bare and in
 * the sandbox (src/bash/sandbox.ts), interleaved so machine noise hits both alike; medians and
 * their difference per command (target ≤ 5 ms). Then what each group of bwrap options costs, by
 * spawning bwrap directly with fewer of them, against a bare `bash -c` measured in the same loop.
 * Prints the load average too: the figures are wall times, and they grow with the machine's load.
 * Usage: bun scripts/bench/sandbox.ts [--runs N]
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { makePathFence } from "../../src/approval/path-fence.ts"
import { makeBackgroundBash } from "../../src/bash/background.ts"
import { bwrapArgs, sandboxStatus } from "../../src/bash/sandbox.ts"
import { makeBashTools } from "../../src/tools/bash-tools.ts"
import type { ToolContext } from "../../src/tools/tool.ts"
import { median, ms } from "./measure.ts"

const flag = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(name)
  return index > 0 ? Number(process.argv[index + 1]) : fallback
}
const runs = flag("--runs", 100)

const status = sandboxStatus()
if (!status.available) {
  console.error(`no OS sandbox to measure: ${status.reason}`)
  process.exit(1)
}

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-sandbox-")))
const workspace = path.join(base, "ws")
const spillDir = path.join(base, "spill")
fs.mkdirSync(path.join(workspace, "src"), { recursive: true })
fs.mkdirSync(spillDir)
fs.writeFileSync(path.join(workspace, "a.txt"), "alpha\nbeta\n")
fs.writeFileSync(path.join(workspace, "src", "b.ts"), "export const b = 1\n")
spawnSync("/bin/bash", ["-c", "git init -q && git add . && git -c user.name=b -c user.email=b@b commit -qm first"], { cwd: workspace })

const bare: ToolContext = { fence: makePathFence(workspace, [{ dir: spillDir, access: "read" }]), sessionId: "bench", spill: () => Effect.succeed(path.join(spillDir, "x")) }
const sandboxed: ToolContext = { ...bare, spillDir, sandbox: "read-only" }

const scope = Effect.runSync(Scope.make())
const background = await Effect.runPromise(makeBackgroundBash({ timeoutSeconds: null }).pipe(Effect.provideService(Scope.Scope, scope)))
const tools = makeBashTools({ background, bashTimeoutSeconds: 120, classifyCommand: () => Effect.die("not classified in the benchmark") })

const commands = ["cat a.txt", "git log --oneline", "grep -rn alpha .", "ls -l src | wc -l"]

const toolRun = (command: string, context: ToolContext) => async (): Promise<void> => {
  const output = await Effect.runPromise(tools.bash.run({ command }, context))
  if (!output.text.startsWith("exit 0\n")) throw new Error(`${command}: ${output.text}`)
}

const time = async (run: () => Promise<void>): Promise<number> => {
  const started = performance.now()
  await run()
  return performance.now() - started
}

/** Medians of interleaved runs, the order rotated so no variant always follows another. */
const interleaved = async (variants: ReadonlyArray<() => Promise<void>>): Promise<Array<number>> => {
  const times = variants.map(() => [] as Array<number>)
  for (let index = 0; index < 5; index++) for (const run of variants) await run()
  for (let index = 0; index < runs; index++) {
    for (let offset = 0; offset < variants.length; offset++) {
      const at = (index + offset) % variants.length
      times[at]!.push(await time(variants[at]!))
    }
  }
  return times.map(median)
}

console.log(`${status.kind} sandbox, bash tool spawn to result (median of ${runs}, interleaved)`)
const differences: Array<number> = []
for (const command of commands) {
  const [plain, boxed] = (await interleaved([toolRun(command, bare), toolRun(command, sandboxed)])) as [number, number]
  differences.push(boxed - plain)
  console.log(`  ${command.padEnd(22)} bare ${ms(plain).padStart(8)}  sandboxed ${ms(boxed).padStart(8)}  difference ${ms(boxed - plain).padStart(7)}`)
}
const cost = median(differences)
console.log(`  cost per command (median of the differences): ${ms(cost)}  (target ≤ 5 ms: ${cost <= 5 ? "met" : "missed"})`)

if (status.kind === "bwrap") {
  // Which options cost what: bwrap spawned directly, `bash -c true`, against a bare bash in the same loop.
  const request = { mode: "read-only", cwd: workspace, readable: [workspace, spillDir], writable: [spillDir] } as const
  const full = bwrapArgs(request)
  /** The arguments as used, less some options (with their values); "masks" drops the /tmp and /run tmpfs and what is bound back under them. */
  const without = (...drop: ReadonlyArray<string>) => {
    const out: Array<string> = []
    for (let index = 0; index < full.length; index++) {
      const arg = full[index]!
      const value = full[index + 1]
      if (arg === "--tmpfs" && drop.includes("masks")) index += 1
      else if (arg === "--ro-bind" && value !== "/" && drop.includes("masks")) index += 2
      else if (drop.includes(arg)) index += arg === "--dev" || arg === "--proc" || arg === "--cap-drop" ? 1 : 0
      else out.push(arg)
    }
    return out
  }
  const spawnRun = (argv: ReadonlyArray<string>) => async (): Promise<void> => {
    const child = Bun.spawn([...argv], { cwd: workspace, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
    const [, stderr, code] = await Promise.all([new Response(child.stdout).arrayBuffer(), new Response(child.stderr).text(), child.exited])
    if (code !== 0) throw new Error(`${argv.join(" ")}: exit ${code}: ${stderr}`)
  }
  const shell = ["/bin/bash", "-c", "true"]
  const variants: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["as used", full],
    ["without --unshare-pid", without("--unshare-pid")],
    ["without --unshare-net", without("--unshare-net")],
    ["without --dev /dev", without("--dev")],
    ["without --proc /proc", without("--proc")],
    ["without the /tmp, /run masks", without("masks")],
    ["--ro-bind / / only", ["--ro-bind", "/", "/", "--"]]
  ]
  const medians = await interleaved([spawnRun(shell), ...variants.map(([, args]) => spawnRun([status.program, ...args, ...shell]))])
  const [plain, ...rest] = medians as [number, ...Array<number>]
  console.log(`bwrap options, \`bash -c true\` (median of ${runs}, interleaved; bare ${ms(plain)})`)
  for (const [index, [name]] of variants.entries()) console.log(`  ${name.padEnd(30)} +${ms((rest[index] ?? 0) - plain)}`)
  // bwrap starts three processes (monitor, pid 1, the shell): on a loaded machine each waits for a core.
  console.log(`load average while measuring: ${os.loadavg().map((value) => value.toFixed(1)).join(" ")} on ${os.cpus().length} cores`)
}

await Effect.runPromise(Scope.close(scope, Exit.void))
fs.rmSync(base, { recursive: true, force: true })
