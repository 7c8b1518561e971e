/// <reference types="bun" />
/**
 * Compiles Crystal into standalone executables with Bun.
 *   bun scripts/build.ts          → dist/crystal for this machine
 *   bun scripts/build.ts --all    → dist/crystal-<os>-<arch>[.exe] for every release target
 *
 * Start-up is tuned the way Bun documents for CLIs (docs/startup.md has the measurements):
 * bytecode, code split into chunks loaded on first use, a lazy JIT during start-up (the program restores the normal policy once the session
 * is under way), and a bytecode layout recorded from real runs of the binary (`--version`, and
 * `run` against a local fake model server), so the code start-up needs sits together at the front.
 * Cross-compiling needs Bun's runtime for each target; a target Bun cannot get fails loudly and
 * the script exits non-zero after trying the rest.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startFakeLlm } from "../test/support/fake-llm/server.ts"
import { messageOf } from "../src/text/error-text.ts"

const root = path.resolve(import.meta.dirname, "..")
const bun = process.execPath
const entry = path.join(root, "src", "main.ts")
const hostBinary = path.join(root, "dist", process.platform === "win32" ? "crystal.exe" : "crystal")

const releaseTargets = [
  { target: "bun-linux-x64", file: "crystal-linux-x64" },
  { target: "bun-linux-arm64", file: "crystal-linux-arm64" },
  { target: "bun-darwin-arm64", file: "crystal-darwin-arm64" },
  { target: "bun-darwin-x64", file: "crystal-darwin-x64" },
  { target: "bun-windows-x64", file: "crystal-windows-x64.exe" }
] as const

/** JavaScriptCore tier-up thresholds × this until startupComplete() (layers/runtime.ts) resets it. */
const startupJitPolicy = 50

interface CompileOptions {
  readonly target?: string
  readonly bytecodeOrder?: ReadonlyArray<string>
}

const compile = (outfile: string, options: CompileOptions = {}): { ok: boolean; output: string } => {
  fs.rmSync(outfile, { force: true })
  const args = [
    "build",
    entry,
    "--compile",
    "--minify",
    "--bytecode",
    // ESM with code splitting keeps the entry chunk tiny and loads the other chunks on their first
    // import: `--version` then costs what an empty binary costs, and the SDKs no adapter uses are
    // never read (a single CommonJS bundle is loaded whole at every start: ~15 ms more).
    "--format",
    "esm",
    "--splitting",
    // A compiled binary would otherwise read .env and bunfig.toml from whatever directory it runs
    // in: a workspace could then set OPENAI_BASE_URL and receive the operator's key.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    `--compile-jit-policy=${startupJitPolicy}`,
    "--outfile",
    outfile
  ]
  if (options.target !== undefined) args.push("--target", options.target)
  if (options.bytecodeOrder !== undefined && options.bytecodeOrder.length > 0) {
    args.push(`--bytecode-order=${options.bytecodeOrder.join(",")}`)
  }
  const result = spawnSync(bun, args, { cwd: root, encoding: "utf8" })
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim()
  return { ok: result.status === 0 && fs.existsSync(outfile), output }
}

/** Runs the binary the way people start it, recording which bytecode start-up touches. */
const recordStartupProfiles = async (binary: string, dir: string): Promise<ReadonlyArray<string>> => {
  const home = path.join(dir, "home")
  const workspace = path.join(dir, "workspace")
  fs.mkdirSync(home)
  fs.mkdirSync(workspace)
  fs.writeFileSync(path.join(workspace, "README.md"), "# profile\n")
  const fake = await startFakeLlm()
  try {
    fake.script([{ text: "Recorded." }])
    fs.writeFileSync(
      path.join(home, "config.json"),
      JSON.stringify({ model: "local/profile", providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1` } } })
    )
    const runs = [
      { name: "run.order", argv: ["run", "hello"] },
      { name: "version.order", argv: ["--version"] }
    ]
    const orders: Array<string> = []
    for (const run of runs) {
      const order = path.join(dir, run.name)
      const child = Bun.spawn([binary, ...run.argv], {
        cwd: workspace,
        // NO_PROXY: the fake server is local even when the build goes through a proxy.
        env: { ...process.env, CRYSTAL_HOME: home, BUN_BYTECODE_ORDER_OUT: order, NO_PROXY: "127.0.0.1,localhost" },
        stdout: "ignore",
        stderr: "pipe"
      })
      const code = await child.exited
      if (code !== 0 || !fs.existsSync(order)) {
        throw new Error(`profiling run \`crystal ${run.argv.join(" ")}\` failed (exit ${code}): ${await new Response(child.stderr).text()}`)
      }
      orders.push(order)
    }
    return orders
  } finally {
    await fake.close()
  }
}

const lastLines = (text: string, count: number): string => text.split("\n").slice(-count).join("\n")

const main = async (): Promise<number> => {
  fs.mkdirSync(path.join(root, "dist"), { recursive: true })
  const first = compile(hostBinary)
  if (!first.ok) {
    console.error(`build failed:\n${first.output}`)
    return 1
  }
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-profile-"))
  try {
    const orders = await recordStartupProfiles(hostBinary, profileDir)
    const profiled = compile(hostBinary, { bytecodeOrder: orders })
    if (!profiled.ok) {
      console.error(`build failed:\n${profiled.output}`)
      return 1
    }
    console.log(`built ${path.relative(root, hostBinary)} (${(fs.statSync(hostBinary).size / 1048576).toFixed(1)} MiB, start-up profile applied)`)
    if (!process.argv.includes("--all")) return 0

    const failures: Array<string> = []
    for (const { target, file } of releaseTargets) {
      const result = compile(path.join(root, "dist", file), { target, bytecodeOrder: orders })
      if (result.ok) {
        console.log(`built dist/${file}`)
      } else {
        failures.push(target)
        console.error(
          `target ${target} failed: Bun could not produce it, usually because the ${target} runtime cannot be ` +
            `downloaded on this machine (cross-compiling fetches it from the network).\n${lastLines(result.output, 5)}`
        )
      }
    }
    if (failures.length > 0) {
      console.error(`${failures.length} of ${releaseTargets.length} targets failed: ${failures.join(", ")}`)
      return 1
    }
    return 0
  } finally {
    fs.rmSync(profileDir, { recursive: true, force: true })
  }
}

process.exit(
  await main().catch((error: unknown) => {
    console.error(`build failed: ${messageOf(error)}`)
    return 1
  })
)
