/// <reference types="bun" />
/**
 * The OS sandbox's cost per command: the bash tool running a few read-only commands bare, in the
 * session's sandbox (one bwrap per session, each command forked inside by the supervisor:
 * src/bash/sandbox-session.ts) and, for comparison, in a bwrap of its own (the path without a
 * session's pool), interleaved so machine noise hits all alike; medians and their difference per
 * command (target ≤ 5 ms). Wall times grow with the machine's load (printed), so the CPU time per
 * command is measured too, in blocks: this process's own (process.cpuUsage), its reaped children's
 * and the supervisor's with the commands it reaped (/proc/PID/stat), over every process involved.
 * The session sandbox's start (bwrap and the supervisor, once per session) is measured over
 * `--starts N` fresh sessions (default 10): the median of their first command less a bare one's.
 * `--options` adds what each group of bwrap options costs a bwrap of its own, and what finding the
 * host's sockets to hide costs (with 0, 128 and 1000 more sockets listening).
 * Usage: bun scripts/bench/sandbox.ts [--runs N] [--starts N] [--options]
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { makeBackgroundBash } from "../../src/bash/background.ts"
import { runForeground } from "../../src/bash/foreground.ts"
import * as net from "node:net"
import { bwrapArgs, hostSocketsToHide, sandboxStatus, type SandboxRequest } from "../../src/bash/sandbox.ts"
import { kernelInterfaceArgs } from "../../src/bash/sandbox-kernel.ts"
import { MAX_HIDDEN_SOCKETS } from "../../src/bash/sandbox-sockets.ts"
import { flag, median, ms } from "./measure.ts"
import { noSecrets } from "../../src/secrets/secrets.ts"

const runs = flag("--runs", 100)
const starts = flag("--starts", 10)
const sign = (value: number): string => `${value >= 0 ? "+" : ""}${ms(value)}`

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

const scope = Effect.runSync(Scope.make())
const background = await Effect.runPromise(makeBackgroundBash({ timeoutSeconds: null }).pipe(Effect.provideService(Scope.Scope, scope)))
/** What the bash tool asks for a sandboxed call in this workspace (bash-tools.ts sandboxFor). */
const request: SandboxRequest = { mode: "read-only", cwd: workspace, readable: [spillDir], writable: [spillDir] }
const commands = ["cat a.txt", "git log --oneline", "grep -rn alpha .", "ls -l src | wc -l"]

type Variant = "bare" | "session sandbox" | "own bwrap"
const variants: ReadonlyArray<Variant> = ["bare", "session sandbox", "own bwrap"]
const sandboxOf = (variant: Variant, pool: typeof background.sandbox) =>
  variant === "bare" ? {} : variant === "session sandbox" ? { sandbox: request, sandboxPool: pool } : { sandbox: request }

/** One command as the bash tool runs it (runForeground, the tool's timeout), bare or sandboxed. */
const runOnce = (command: string, variant: Variant, pool = background.sandbox) => async (): Promise<void> => {
  const result = await Effect.runPromise(runForeground({ secrets: noSecrets, command, cwd: workspace, timeoutSeconds: 120, ...sandboxOf(variant, pool) }))
  if (result.outcome._tag !== "Exited" || result.outcome.code !== 0) throw new Error(`${command} (${variant}): ${JSON.stringify(result.outcome)} ${result.output}`)
}

const time = async (run: () => Promise<void>): Promise<number> => {
  const started = performance.now()
  await run()
  return performance.now() - started
}

/** Medians of interleaved runs, the order rotated so no variant always follows another. */
const interleaved = async (runners: ReadonlyArray<() => Promise<void>>): Promise<Array<number>> => {
  const times = runners.map(() => [] as Array<number>)
  for (let index = 0; index < 5; index++) for (const run of runners) await run()
  for (let index = 0; index < runs; index++) {
    for (let offset = 0; offset < runners.length; offset++) {
      const at = (index + offset) % runners.length
      times[at]!.push(await time(runners[at]!))
    }
  }
  return times.map(median)
}

/**
 * `--cpu VARIANT`: only run `cat a.txt` --runs times that way, for an outside CPU count that
 * follows every process (the sandbox's included), e.g.
 *   perf stat -r 5 -e task-clock bun scripts/bench/sandbox.ts --cpu session --runs 200
 * against `--cpu bare` and `--cpu own` (and `--runs 0` for the fixed start-up cost).
 */
const cpuOnly = process.argv.indexOf("--cpu")
if (cpuOnly > 0) {
  const variant = ({ bare: "bare", session: "session sandbox", own: "own bwrap" } as const)[process.argv[cpuOnly + 1] ?? ""]
  if (variant === undefined) {
    console.error("--cpu takes bare, session or own")
    process.exit(2)
  }
  for (let index = 0; index < runs; index++) await runOnce("cat a.txt", variant)()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  fs.rmSync(base, { recursive: true, force: true })
  process.exit(0)
}

const load = () => os.loadavg().map((value) => value.toFixed(1)).join(" ")

const first = await time(runOnce("cat a.txt", "session sandbox"))
const second = await time(runOnce("cat a.txt", "session sandbox"))
console.log(`first sandboxed command of a session (starts bwrap and the supervisor): ${ms(first)}; the next: ${ms(second)}`)

/** A fresh session per run (its own pool, so its own bwrap and supervisor): its first command against a bare one, alternated. */
const startCost = async (): Promise<void> => {
  const firsts: Array<number> = []
  const bares: Array<number> = []
  for (let index = 0; index < starts; index++) {
    const session = Effect.runSync(Scope.make())
    const fresh = await Effect.runPromise(makeBackgroundBash({ timeoutSeconds: null }).pipe(Effect.provideService(Scope.Scope, session)))
    bares.push(await time(runOnce("cat a.txt", "bare")))
    firsts.push(await time(runOnce("cat a.txt", "session sandbox", fresh.sandbox)))
    await Effect.runPromise(Scope.close(session, Exit.void))
  }
  console.log(`the session sandbox's start (median of ${starts} fresh sessions, first command less a bare one): +${ms(median(firsts) - median(bares))} (first ${ms(median(firsts))}, bare ${ms(median(bares))})`)
}
if (starts > 0) await startCost()
console.log(`${status.kind} sandbox, bash tool spawn to result (median of ${runs}, interleaved); load average ${load()} on ${os.cpus().length} cores`)
const differences: Record<Exclude<Variant, "bare">, Array<number>> = { "session sandbox": [], "own bwrap": [] }
for (const command of commands) {
  const [plain, session, own] = (await interleaved(variants.map((variant) => runOnce(command, variant)))) as [number, number, number]
  differences["session sandbox"].push(session - plain)
  differences["own bwrap"].push(own - plain)
  console.log(
    `  ${command.padEnd(22)} bare ${ms(plain).padStart(8)}  session sandbox ${ms(session).padStart(8)} (${sign(session - plain)})  own bwrap ${ms(own).padStart(8)} (${sign(own - plain)})`
  )
}
const cost = median(differences["session sandbox"])
console.log(`  wall cost per command (median of the differences): session sandbox ${ms(cost)} (target ≤ 5 ms: ${cost <= 5 ? "met" : "missed"}), own bwrap ${ms(median(differences["own bwrap"]))}`)

/**
 * Where the session sandbox's CPU goes, by process (exact for these two, whatever the load): this
 * process's own (process.cpuUsage) per command, bare and in the session sandbox, and the
 * supervisor's own (/proc/PID/stat utime + stime; the commands it runs are its children, not it).
 */
const split = async (): Promise<void> => {
  const count = Math.max(runs, 100)
  const supervisorCpu = (): number => {
    const pid = background.sandbox.sandboxes()[0]?.supervisorPid
    if (pid === undefined) return 0
    const text = fs.readFileSync(`/proc/${pid}/stat`, "latin1")
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  }
  const host: Record<"bare" | "session sandbox", number> = { bare: 0, "session sandbox": 0 }
  let supervisor = 0
  for (let done = 0; done < count; done += 20) {
    for (const variant of ["bare", "session sandbox"] as const) {
      const before = process.cpuUsage()
      const inside = supervisorCpu()
      for (let index = 0; index < 20; index++) await runOnce("cat a.txt", variant)()
      const used = process.cpuUsage(before)
      host[variant] += (used.user + used.system) / 1000
      if (variant === "session sandbox") supervisor += supervisorCpu() - inside
    }
  }
  console.log(`CPU by process, \`cat a.txt\` (${count} runs each): Crystal itself bare ${ms(host.bare / count)}, with the session sandbox ${ms(host["session sandbox"] / count)}; the supervisor ${ms(supervisor / count)} per command`)
}
await split()

/**
 * CPU time per command: this script again with `--cpu VARIANT`, under `perf stat -e task-clock`,
 * which counts every process it starts, the sandbox's and the commands' included (an in-process
 * count misses those no parent waited for). Per command = (cpu(N runs) − cpu(1 run)) / (N − 1);
 * the session sandbox's one start (bwrap and the supervisor, once per session) = its cpu(1 run)
 * less the bare one's.
 */
const perf = spawnSync("perf", ["--version"]).status === 0
if (perf) {
  const cpuRuns = Math.max(runs, 50)
  const rounds = 3
  const cpuOf = (variant: "bare" | "session" | "own", count: number): number => {
    const result = spawnSync("perf", ["stat", "-x", ",", "-e", "task-clock", process.execPath, import.meta.path, "--cpu", variant, "--runs", String(count)], { encoding: "utf8" })
    const line = result.stderr.split("\n").find((text) => text.includes("task-clock"))
    if (result.status !== 0 || line === undefined) throw new Error(`perf stat failed: ${result.stderr}`)
    return Number(line.split(",")[0])
  }
  const names = ["bare", "session", "own"] as const
  const once: Record<(typeof names)[number], Array<number>> = { bare: [], session: [], own: [] }
  const many: Record<(typeof names)[number], Array<number>> = { bare: [], session: [], own: [] }
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      once[name].push(cpuOf(name, 1))
      many[name].push(cpuOf(name, cpuRuns))
    }
  }
  const perCommand = (name: (typeof names)[number]) => (median(many[name]) - median(once[name])) / (cpuRuns - 1)
  const [bare, session, own] = names.map(perCommand) as [number, number, number]
  console.log(`CPU time per command, \`cat a.txt\` (perf stat -e task-clock, every process; medians of ${rounds} runs of ${cpuRuns} commands; load average ${load()})`)
  console.log(`  bare ${ms(bare)}  session sandbox ${ms(session)} (${sign(session - bare)})  own bwrap ${ms(own)} (${sign(own - bare)})`)
  console.log(`  the session sandbox's start, once per session: ${ms(median(once.session) - median(once.bare))} of CPU`)
} else {
  console.log("CPU time per command: not measured (perf is not installed)")
}

if (status.kind === "bwrap" && process.argv.includes("--options")) {
  // Which options cost what: bwrap spawned directly, `bash -c true`, against a bare bash in the same loop.
  const request = { mode: "read-only", cwd: workspace, readable: [workspace, spillDir], writable: [spillDir] } as const
  const full = bwrapArgs(request)
  const kernel = kernelInterfaceArgs()
  const kernelAt = full.findIndex((_, at) => kernel.every((arg, offset) => full[at + offset] === arg))
  /**
   * The arguments as used, less some options (with their values); "masks" drops the tmpfs masks
   * (/tmp, /var/tmp, /run, the home's) and what is bound back under them, "kernel" the binds and
   * masks over /proc and /sys (sandbox-kernel.ts).
   */
  const without = (...drop: ReadonlyArray<string>) => {
    const out: Array<string> = []
    for (let index = 0; index < full.length; index++) {
      if (kernel.length > 0 && index === kernelAt) {
        if (!drop.includes("kernel")) out.push(...kernel)
        index += kernel.length - 1
        continue
      }
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
  const listening: Array<net.Server> = []
  /** `count` more sockets listening in the workspace (the cost of a bind does not depend on where). */
  const listenMore = async (count: number): Promise<Array<string>> => {
    const dir = path.join(base, "sockets")
    fs.mkdirSync(dir, { recursive: true })
    const made: Array<string> = []
    for (let index = 0; index < count; index++) {
      const file = path.join(dir, `${listening.length}.sock`)
      const server = net.createServer(() => {})
      listening.push(server)
      await new Promise<void>((resolve) => server.listen(file, resolve))
      made.push(file)
    }
    return made
  }
  const scanCost = (): number => {
    const times: Array<number> = []
    for (let index = 0; index < 50; index++) {
      const started = performance.now()
      hostSocketsToHide(request)
      times.push(performance.now() - started)
    }
    return median(times)
  }
  const scanned = [`${ms(scanCost())} as the host is`]
  const hundreds = await listenMore(MAX_HIDDEN_SOCKETS)
  scanned.push(`${ms(scanCost())} with ${MAX_HIDDEN_SOCKETS} more sockets`)
  await listenMore(1000 - MAX_HIDDEN_SOCKETS)
  scanned.push(`${ms(scanCost())} with 1000 more`)
  console.log(`finding the host's sockets to hide (/proc/net/unix, lstat, realpath; median of 50): ${scanned.join(", ")}`)

  const shell = ["/bin/bash", "-c", "true"]
  const variants: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["as used", full],
    [`with ${MAX_HIDDEN_SOCKETS} hidden sockets`, bwrapArgs(request, process.env, hundreds)],
    [`with 32 hidden sockets`, bwrapArgs(request, process.env, hundreds.slice(0, 32))],
    ["without the /proc, /sys binds", without("kernel")],
    ["… and without --unshare-uts", without("kernel", "--unshare-uts")],
    ["without --unshare-pid", without("--unshare-pid")],
    ["without --unshare-net", without("--unshare-net")],
    ["without --dev /dev", without("--dev")],
    ["without --proc /proc", without("--proc")],
    ["without the tmpfs masks", without("masks")],
    ["--ro-bind / / only", ["--ro-bind", "/", "/", "--"]]
  ]
  const medians = await interleaved([spawnRun(shell), ...variants.map(([, args]) => spawnRun([status.program, ...args, ...shell]))])
  const [plain, ...rest] = medians as [number, ...Array<number>]
  console.log(`bwrap options, \`bash -c true\` (median of ${runs}, interleaved; bare ${ms(plain)})`)
  for (const [index, [name]] of variants.entries()) console.log(`  ${name.padEnd(30)} +${ms((rest[index] ?? 0) - plain)}`)
  // bwrap starts three processes (monitor, pid 1, the shell): on a loaded machine each waits for a core.
  console.log(`load average while measuring: ${load()} on ${os.cpus().length} cores`)
  for (const server of listening) server.close()
}

await Effect.runPromise(Scope.close(scope, Exit.void))
fs.rmSync(base, { recursive: true, force: true })
