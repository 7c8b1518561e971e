/**
 * The process-level guarantee: whatever ends a crystal process that holds background tasks (a
 * SIGTERM, a second signal during shutdown, a crashing turn), every task's process tree is dead
 * once it has exited. The fixture runs the service under the real runtime (layers/runtime.ts);
 * liveness is checked from here, outside it.
 */
import { spawn, spawnSync } from "node:child_process"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { alive, eventually, reap, sleep } from "./support.ts"

const bun = path.resolve(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "bun")
const fixture = path.join(import.meta.dirname, "fixtures", "session-process.ts")
const hasSetsid = spawnSync("setsid", ["--version"]).status === 0

const leftovers = new Set<number>()
afterEach(() => {
  reap(leftovers)
  leftovers.clear()
})

interface Running {
  readonly pids: ReadonlyArray<number>
  readonly signal: (name: NodeJS.Signals) => void
  readonly exited: Promise<{ readonly code: number | null; readonly stderr: string }>
}

const startFixture = (args: ReadonlyArray<string>): Promise<Running> =>
  new Promise((resolve, reject) => {
    const child = spawn(bun, [fixture, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    const exited = new Promise<{ code: number | null; stderr: string }>((done) => child.on("close", (code) => done({ code, stderr })))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const line = stdout.split("\n")[0]
      if (!stdout.includes("\n") || line === undefined) return
      const { pids } = JSON.parse(line) as { pids: Array<number> }
      pids.forEach((pid) => leftovers.add(pid))
      resolve({ pids, signal: (name) => child.kill(name), exited })
    })
    child.on("error", reject)
    void exited.then(({ code }) => reject(new Error(`the fixture exited (${code}) before reporting its pids:\n${stderr}`)))
  })

describe.skipIf(!hasSetsid || process.platform !== "linux")("a process running BackgroundBash", () => {
  it("kills every task tree when it gets SIGTERM (its scope closes before it exits)", async () => {
    const running = await startFixture(["300"])
    expect(running.pids).toHaveLength(7)
    expect(running.pids.filter(alive)).toHaveLength(7)
    const started = Date.now()
    running.signal("SIGTERM")
    const { code, stderr } = await running.exited
    expect(stderr).toBe("")
    expect(code).toBe(143)
    expect(running.pids.filter(alive)).toEqual([])
    // The task ignoring SIGTERM held the exit for the grace period, then was SIGKILLed.
    expect(Date.now() - started).toBeGreaterThanOrEqual(300)
  })

  it("kills them at once when a second signal cuts the grace period short", async () => {
    const running = await startFixture(["30000"])
    running.signal("SIGTERM")
    await sleep(200)
    const started = Date.now()
    running.signal("SIGTERM")
    const { code } = await running.exited
    expect(code).toBe(143)
    expect(Date.now() - started).toBeLessThan(2000)
    // The exit hook sent SIGKILL on the way out; delivery takes a moment.
    expect(await eventually(() => running.pids.filter(alive).length === 0, 1000)).toBe(true)
  })

  it("kills them when the program dies of a defect", async () => {
    const running = await startFixture(["300", "crash"])
    const { code, stderr } = await running.exited
    expect(code).toBe(70)
    expect(stderr).toContain("the turn crashed")
    expect(running.pids.filter(alive)).toEqual([])
  })
})
