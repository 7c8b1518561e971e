import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { acquireSessionLock, lockFile } from "../../../src/session/lock.ts"
import { tempDir } from "../../support/temp.ts"

describe("session locks", () => {
  it("are not taken twice inside one process, and free again once released", async () => {
    const dir = path.join(await tempDir(), "sessions")
    const first = acquireSessionLock(dir, "s1")
    expect(first._tag).toBe("Locked")
    expect(acquireSessionLock(dir, "s1")).toEqual({ _tag: "Busy", pid: process.pid })
    expect(fs.readFileSync(lockFile(dir, "s1"), "utf8")).toBe(`${process.pid}\n`)
    if (first._tag === "Locked") first.release()
    expect(fs.existsSync(lockFile(dir, "s1"))).toBe(false)
    const again = acquireSessionLock(dir, "s1")
    expect(again._tag).toBe("Locked")
    if (again._tag === "Locked") again.release()
  })

  it("take over a lock left with this process's pid by an earlier process that had the same pid", async () => {
    const dir = path.join(await tempDir(), "sessions")
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(lockFile(dir, "s2"), `${process.pid}\n`)
    const lock = acquireSessionLock(dir, "s2")
    expect(lock._tag).toBe("Locked")
    if (lock._tag === "Locked") lock.release()
  })

  it("leave a live owner's lock alone", async () => {
    const dir = path.join(await tempDir(), "sessions")
    fs.mkdirSync(dir, { recursive: true })
    // pid 1 is always alive.
    fs.writeFileSync(lockFile(dir, "s3"), "1\n")
    expect(acquireSessionLock(dir, "s3")).toEqual({ _tag: "Busy", pid: 1 })
    expect(fs.readFileSync(lockFile(dir, "s3"), "utf8")).toBe("1\n")
  })
})
