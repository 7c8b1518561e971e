/**
 * Nothing a session starts outlives it (docs/containment.md), through the compiled binary: escapees
 * of foreground and background commands (setsid -f, double fork, setpgrp, a cleared environment)
 * across every way a session ends, and what a SIGKILLed crystal left, reaped by the next start.
 *
 * The soak runs CRYSTAL_SOAK_ROUNDS rounds (default 3, ~14 s per exit path here: CI's budget) of 32
 * background tasks with escaping grandchildren per exit path; `CRYSTAL_SOAK_ROUNDS=50 npx vitest run --project e2e test/e2e/containment.test.ts`
 * is the full soak.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"
import { killProcessesWith, processesWith, waitForProcesses } from "../support/processes.ts"

const servers: Array<FakeLlm> = []
const markers: Array<string> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
  for (const marker of markers.splice(0)) await killProcessesWith(marker)
})

const fakeServer = async () => {
  const fake = await startFakeLlm()
  servers.push(fake)
  return fake
}

let markerCount = 0
const newMarker = (): string => {
  const marker = `crystal-contain-${process.pid}-${Date.now()}-${++markerCount}`
  markers.push(marker)
  return marker
}

const linux = process.platform === "linux" && spawnSync("setsid", ["--version"]).status === 0 && spawnSync("perl", ["-e", "1"]).status === 0
const rounds = Math.max(1, Number(process.env["CRYSTAL_SOAK_ROUNDS"] ?? "3"))
const TASKS = 32

/**
 * Grandchildren of every kind, each named `<marker>-<kind>` in its argv: a plain child, `setsid -f`,
 * a double fork, a double fork with setsid, setpgrp, and a setsid with a cleared environment
 * (no tag: only the subreaper keeps it).
 */
const escapees = (marker: string): string =>
  [
    `bash -c 'exec -a ${marker}-child sleep 1000' &`,
    `setsid -f bash -c 'exec -a ${marker}-setsid sleep 1000'`,
    `( (bash -c 'exec -a ${marker}-double sleep 1000' &) & )`,
    `( (setsid bash -c 'exec -a ${marker}-double-setsid sleep 1000' &) & )`,
    `perl -e 'setpgrp(0, 0); exec {"sleep"} "${marker}-setpgrp", "1000"' &`,
    `setsid -f env -i /bin/bash -c 'exec -a ${marker}-no-env sleep 1000'`
  ].join("\n")
const PER_COMMAND = 6

describe.skipIf(!linux)("containment", () => {
  it("a foreground command's escapees are dead when its result comes back", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const marker = newMarker()
    let alive: Array<number> | undefined
    fake.script([
      { toolCalls: [{ name: "bash", arguments: { command: `${escapees(marker)}\nsleep 0.5; echo started` } }] },
      async () => {
        alive = await processesWith(`${marker}-`)
        return { text: "done" }
      }
    ])
    const result = await runCrystal(sandbox, ["run", "--approval", "full", "go"])
    expect(result.code).toBe(0)
    // The one with a cleared environment carries no tag: it goes when the session does.
    expect(alive).toBeDefined()
    const names = await Promise.all((alive ?? []).map((pid) => fs.readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")))
    expect(names.filter((name) => name !== "" && !name.startsWith(`${marker}-no-env`))).toEqual([])
    expect(await processesWith(marker)).toEqual([])
  })

  const exits = [
    { how: "normal exit", signal: undefined, code: 0 },
    { how: "SIGINT", signal: "SIGINT", code: 130 },
    { how: "SIGTERM", signal: "SIGTERM", code: 143 },
    { how: "SIGHUP", signal: "SIGHUP", code: 129 }
  ] as const

  it.each(exits)(
    `soak: ${TASKS} background tasks with escaping grandchildren, closed by $how: 0 survivors in ${rounds} rounds`,
    async ({ signal, code }) => {
      const survivors: Array<number> = []
      let started = 0
      for (let round = 0; round < rounds; round++) {
        const sandbox = await makeSandbox()
        const fake = await fakeServer()
        await writeLocalConfig(sandbox, fake.url)
        const marker = newMarker()
        let pid = 0
        const expected = TASKS * (PER_COMMAND + 1)
        fake.script([
          {
            toolCalls: Array.from({ length: TASKS }, (_, task) => ({
              name: "bash_start",
              arguments: { command: `${escapees(marker)}\nexec -a ${marker}-task-${task} sleep 1000` }
            }))
          },
          async () => {
            started += (await waitForProcesses(`${marker}-`, (n) => n >= expected, 30_000)).length
            if (signal === undefined) return { text: "done" }
            process.kill(pid, signal)
            return { text: "never sent", delayMs: 30_000 }
          }
        ])
        const result = await runCrystal(sandbox, ["run", "--approval", "full", "start them"], { onSpawn: (spawned) => (pid = spawned) })
        expect(result.code).toBe(code)
        survivors.push(...(await processesWith(marker)))
        await fake.close()
      }
      expect(survivors).toEqual([])
      expect(started).toBe(rounds * TASKS * (PER_COMMAND + 1))
    },
    rounds * 30_000
  )

  it("a SIGKILLed crystal leaves a pid file; the next start in that home kills what it left, and only that", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const marker = newMarker()
    const bystander = newMarker()
    // Not started by crystal: must survive the reaping.
    const outsider = spawnSync("bash", ["-c", `setsid -f bash -c 'exec -a ${bystander} sleep 1000'`], { stdio: "ignore" })
    expect(outsider.status).toBe(0)
    let pid = 0
    fake.script([
      { toolCalls: [{ name: "bash_start", arguments: { command: `${escapees(marker)}\nexec -a ${marker}-task sleep 1000` } }] },
      async () => {
        await waitForProcesses(`${marker}-`, (n) => n >= PER_COMMAND + 1)
        process.kill(pid, "SIGKILL")
        return { text: "never sent", delayMs: 30_000 }
      }
    ])
    const killed = await runCrystal(sandbox, ["run", "--approval", "full", "start"], { onSpawn: (spawned) => (pid = spawned) })
    expect(killed.signal).toBe("SIGKILL")
    const runDir = path.join(sandbox.home, "run")
    expect(await fs.readdir(runDir)).toEqual([`${pid}.json`])
    // SIGKILL runs no code: the tagged orphans live on (the one without a tag is lost: docs/containment.md).
    const orphans = await processesWith(marker)
    expect(orphans.length).toBe(PER_COMMAND + 1)

    fake.script([{ text: "hello" }])
    const next = await runCrystal(sandbox, ["run", "hi"])
    expect(next.code).toBe(0)
    const left = await waitForProcesses(marker, (n) => n <= 1, 5000)
    const names = await Promise.all(left.map((id) => fs.readFile(`/proc/${id}/cmdline`, "utf8").catch(() => "")))
    expect(names.filter((name) => name !== "" && !name.startsWith(`${marker}-no-env`))).toEqual([])
    expect(await fs.readdir(runDir)).toEqual([])
    expect(await processesWith(bystander)).toHaveLength(1)
  })
})
