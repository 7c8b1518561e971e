import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { writeFileAtomic } from "../../../src/files/atomic.ts"
import { isOrphanedTemp, removeOrphanedTemps } from "../../../src/files/orphaned-temps.ts"
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
})
