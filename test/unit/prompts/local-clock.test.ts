import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { localClockSource, localOffsetMinutes } from "../../../src/prompts/local-clock.ts"
import { localDate, localTime } from "../../../src/prompts/values.ts"

const root = path.resolve(import.meta.dirname, "..", "..", "..")
const bun = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun")

/** Half-hour and 45-minute offsets, both hemispheres' summer time, and no summer time. */
const zones = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "America/St_Johns", "Australia/Lord_Howe", "Pacific/Chatham", "Asia/Tokyo"]
const available = zones.filter((zone) => zone === "UTC" || fs.existsSync(path.join("/usr/share/zoneinfo", zone)))

/** Winter and summer, and either side of the 2026 changes in Europe and the United States. */
const instants = [
  Date.UTC(2026, 0, 15, 12, 0, 0),
  Date.UTC(2026, 6, 15, 23, 30, 0),
  Date.UTC(2026, 2, 29, 0, 59, 59),
  Date.UTC(2026, 2, 29, 1, 0, 0),
  Date.UTC(2026, 2, 8, 6, 59, 59),
  Date.UTC(2026, 2, 8, 7, 0, 0),
  Date.UTC(2026, 9, 25, 0, 59, 59),
  Date.UTC(2026, 9, 25, 1, 0, 0)
]

interface Report {
  readonly source: "libc" | "date"
  readonly rows: ReadonlyArray<{ ms: number; offset: number; dateOffset: number; time: string; hours: number; date: number }>
}

describe("the local clock", () => {
  it("under Node gives Date's offset and local fields", () => {
    expect(localClockSource()).toBe("date")
    const now = new Date(2026, 0, 2, 3, 4, 5)
    expect(localOffsetMinutes(now)).toBe(-now.getTimezoneOffset())
    expect(localTime(now)).toMatch(/^2026-01-02T03:04:05[+-]\d\d:\d\d$/)
    expect(localDate(now)).toBe("2026-01-02")
  })

  it.each(available)("under Bun reads the C library and agrees with Date in %s", (zone) => {
    const run = spawnSync(bun, [path.join(root, "test", "support", "bun-local-clock.ts"), ...instants.map(String)], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, TZ: zone }
    })
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    const report = JSON.parse(run.stdout) as Report
    if (process.platform === "linux" || process.platform === "darwin") expect(report.source).toBe("libc")
    expect(report.rows).toHaveLength(instants.length)
    for (const row of report.rows) {
      expect({ ms: row.ms, offset: row.offset }).toEqual({ ms: row.ms, offset: row.dateOffset })
      const sign = row.offset >= 0 ? "+" : "-"
      const suffix = `${sign}${String(Math.floor(Math.abs(row.offset) / 60)).padStart(2, "0")}:${String(Math.abs(row.offset) % 60).padStart(2, "0")}`
      expect(row.time.endsWith(suffix)).toBe(true)
      expect(Number(row.time.slice(11, 13))).toBe(row.hours)
      expect(Number(row.time.slice(8, 10))).toBe(row.date)
    }
  })

  it("covers zones away from UTC on this machine (the comparison above is not all UTC)", () => {
    expect(available.length).toBeGreaterThan(1)
  })
})
