import { spawnSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { writeFileAtomic } from "../../../src/files/atomic.ts"
import { isOrphanedTemp, removeOrphanedTemps, removeOrphanedTempsSync, scheduleOrphanedTempRemoval } from "../../../src/files/orphaned-temps.ts"
import { tempDir } from "../../support/temp.ts"

const now = Date.parse("2026-12-01T12:00:00Z")
const day = 86_400_000
const dead = (): boolean => false
const alive = (): boolean => true

describe("orphaned temp files", () => {
  it.each([
    [`.s.json.12345.${now}.0.tmp`, dead, true],
    [`.s.json.12345.${now}.0.tmp`, alive, false],
    [`.s.json.12345.${now - 2 * day}.7.tmp`, alive, true],
    [`.config.json.1.${now}.0.tmp`, dead, true],
    [`.s.json.${process.pid}.${now}.0.tmp`, dead, false],
    ["s.json.12345.1.0.tmp", dead, false],
    [".s.json.tmp", dead, false],
    ["notes.tmp", dead, false],
    [`.s.json.12345.${now}.0.tmp.bak`, dead, false],
    [`.s.json.abc.${now}.0.tmp`, dead, false]
  ] as const)("%s (writer runs: %s) is orphaned: %s", (name, runs, expected) => {
    expect(isOrphanedTemp(name, now, runs)).toBe(expected)
  })

  it("removes the orphans of dead writers, keeps everything else, and ignores missing folders", async () => {
    const dir = await tempDir()
    const orphan = `.a.json.4194305.${Date.now()}.0.tmp`
    const names = [orphan, `.b.json.${process.pid}.${Date.now()}.0.tmp`, "c.json", "d.tmp"]
    for (const name of names) await fs.writeFile(path.join(dir, name), "x")
    await writeFileAtomic(path.join(dir, "e.json"), "{}")
    const removed = await removeOrphanedTemps([dir, path.join(dir, "missing")])
    expect(removed).toEqual([path.join(dir, orphan)])
    expect((await fs.readdir(dir)).sort()).toEqual(names.slice(1).concat("e.json").sort())
  })

  it("removes the same files synchronously", async () => {
    const dir = await tempDir()
    const orphan = `.a.json.4194305.${Date.now()}.0.tmp`
    const names = [orphan, `.b.json.${process.pid}.${Date.now()}.0.tmp`, "c.json", "d.tmp"]
    for (const name of names) await fs.writeFile(path.join(dir, name), "x")
    expect(removeOrphanedTempsSync([dir, path.join(dir, "missing")])).toEqual([path.join(dir, orphan)])
    expect((await fs.readdir(dir)).sort()).toEqual(names.slice(1).sort())
  })

  it("scheduled, leaves the folder alone until the timer, then removes the orphans", async () => {
    const dir = await tempDir()
    const orphan = path.join(dir, `.a.json.4194305.${Date.now()}.0.tmp`)
    await fs.writeFile(orphan, "x")
    scheduleOrphanedTempRemoval([dir], 20)
    // Nothing on the caller's way: the scan has not happened yet.
    expect(await fs.readdir(dir)).toEqual([path.basename(orphan)])
    const deadline = Date.now() + 10_000
    while ((await fs.readdir(dir)).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(await fs.readdir(dir)).toEqual([])
  })

  it("scheduled in a process that exits before the timer, removes them on its way out", async () => {
    const dir = await tempDir()
    const orphan = `.a.json.4194305.${Date.now()}.0.tmp`
    await fs.writeFile(path.join(dir, orphan), "x")
    await fs.writeFile(path.join(dir, "kept.tmp"), "x")
    const root = path.resolve(import.meta.dirname, "..", "..", "..")
    const bun = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun")
    const run = spawnSync(bun, [path.join(root, "test", "support", "schedule-orphans.ts"), dir], { cwd: root, encoding: "utf8", timeout: 30_000 })
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    expect(await fs.readdir(dir)).toEqual(["kept.tmp"])
  })
})
