/** Runs the compiled binary the way a user or a script does: a real process, real files, a real server. */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { checkJsonEvents } from "./json-events.ts"
import { tempDir } from "./temp.ts"

export const crystalBinary = path.resolve(import.meta.dirname, "..", "..", "dist", process.platform === "win32" ? "crystal.exe" : "crystal")

if (!fs.existsSync(crystalBinary)) {
  throw new Error(`${crystalBinary} is missing: the e2e tests run the compiled binary; run \`npm run build\` first`)
}

export interface CrystalResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface Sandbox {
  readonly home: string
  readonly workspace: string
  /** A clean environment: no provider keys leak in from the machine running the tests. */
  readonly env: Record<string, string>
}

export const makeSandbox = async (files: Readonly<Record<string, string>> = {}): Promise<Sandbox> => {
  const root = await tempDir("crystal-e2e-")
  const home = path.join(root, "home")
  const workspace = path.join(root, "workspace")
  await fsp.mkdir(home)
  await fsp.mkdir(workspace)
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(workspace, name)
    await fsp.mkdir(path.dirname(file), { recursive: true })
    await fsp.writeFile(file, content)
  }
  return {
    home,
    workspace,
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: root, CRYSTAL_HOME: home, NO_COLOR: "1" }
  }
}

/** config.json with one OpenAI-compatible provider "local" pointing at a fake server. */
export const writeLocalConfig = async (sandbox: Sandbox, baseURL: string, extra: Record<string, unknown> = {}): Promise<string> => {
  const file = path.join(sandbox.home, "config.json")
  const config = {
    model: "local/test-model",
    providers: { local: { protocol: "openai-chat", baseURL: `${baseURL}/v1`, models: { "test-model": { contextWindow: 32768 } } } },
    ...extra
  }
  await fsp.writeFile(file, JSON.stringify(config, null, 2))
  return file
}

export interface RunOptions {
  readonly stdin?: string
  readonly env?: Record<string, string>
  readonly cwd?: string
  /** Called once the process is running (to send signals, for example). */
  readonly onSpawn?: (pid: number) => void
  /**
   * A run still going after this long is killed (SIGKILL) and the promise rejects naming the
   * timeout: a test of something that could hang fails instead of holding CI.
   */
  readonly timeoutMs?: number
  /** A program (and its arguments) that runs the binary, e.g. `unshare --uts --`. */
  readonly wrap?: ReadonlyArray<string>
}

export const runCrystal = (sandbox: Sandbox, args: ReadonlyArray<string>, options: RunOptions = {}): Promise<CrystalResult> =>
  new Promise((resolve, reject) => {
    const [program = crystalBinary, ...wrapArgs] = options.wrap === undefined ? [] : [...options.wrap, crystalBinary]
    const child = spawn(program, [...wrapArgs, ...args], {
      cwd: options.cwd ?? sandbox.workspace,
      env: { ...sandbox.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject)
    let timedOut = false
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true
            child.kill("SIGKILL")
          }, options.timeoutMs)
    child.on("close", (code, signal) => {
      if (timer !== undefined) clearTimeout(timer)
      if (timedOut) reject(new Error(`crystal ${args.join(" ")} was still running after ${options.timeoutMs} ms; killed.\nstdout: ${stdout}\nstderr: ${stderr}`))
      else resolve({ code, signal, stdout, stderr })
    })
    if (child.pid !== undefined) options.onSpawn?.(child.pid)
    // A run that ends before reading its input (a bad flag) may close the pipe before this write
    // lands, on a loaded machine: that EPIPE is the run's business, its exit code tells.
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error)
    })
    child.stdin.end(options.stdin ?? "")
  })

/**
 * The events of a `crystal run --format json` stdout, each checked against the contract
 * (test/support/json-events.ts): an event the schema does not describe fails the test that read it.
 */
export const jsonLines = (stdout: string): ReadonlyArray<Record<string, unknown>> => {
  const events = stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  checkJsonEvents(events)
  return events
}

export const sessionFiles = async (sandbox: Sandbox): Promise<ReadonlyArray<string>> => {
  const dir = path.join(sandbox.home, "sessions")
  const names = await fsp.readdir(dir).catch(() => [])
  return names.filter((name) => name.endsWith(".json")).map((name) => path.join(dir, name))
}

export const readSession = async (file: string): Promise<Record<string, unknown> & { items: Array<Record<string, unknown>> }> =>
  JSON.parse(await fsp.readFile(file, "utf8")) as Record<string, unknown> & { items: Array<Record<string, unknown>> }
