import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { acquireSessionLock, lockFile } from "../../../src/session/lock.ts"
import { makeSessionStore } from "../../../src/session/store.ts"
import { tempDir } from "../../support/temp.ts"

const fixture = path.join(import.meta.dirname, "fixtures", "save-forever.ts")
const bun = path.resolve(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "bun")

describe("session saves are crash-safe", () => {
  it("leave a complete old or new version when the saving process is SIGKILLed at any moment", async () => {
    const dir = path.join(await tempDir(), "sessions")
    const id = "20261130-000000-c0ffee"
    const file = path.join(dir, `${id}.json`)
    const store = makeSessionStore(dir)
    let lastVersion = 0
    for (let round = 0; round < 15; round++) {
      const child = spawn(bun, [fixture, dir, id], { stdio: ["ignore", "pipe", "inherit"] })
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60))
      child.kill("SIGKILL")
      await new Promise((resolve) => child.once("exit", resolve))
      const doc = await Effect.runPromise(store.load(id))
      const version = Number(doc.title)
      expect(doc.items.every((item) => item._tag === "note" && item.text.startsWith(`${version} `))).toBe(true)
      expect(version).toBeGreaterThanOrEqual(1)
      lastVersion = version
      expect(JSON.parse(await fs.readFile(file, "utf8")).id).toBe(id)
    }
    expect(lastVersion).toBeGreaterThan(0)
  }, 60_000)
})

describe("one process per session", () => {
  it("refuses a second owner while the first lives, takes over a dead one's lock, and releases", async () => {
    const dir = await tempDir()
    const first = acquireSessionLock(dir, "s1")
    expect(first._tag).toBe("Locked")
    // Another live process owns it.
    await fs.writeFile(lockFile(dir, "s2"), `${process.ppid}\n`)
    expect(acquireSessionLock(dir, "s2")).toEqual({ _tag: "Busy", pid: process.ppid })
    // A dead process's lock is taken over.
    await fs.writeFile(lockFile(dir, "s3"), "999999999\n")
    expect(acquireSessionLock(dir, "s3")._tag).toBe("Locked")
    if (first._tag === "Locked") first.release()
    await expect(fs.access(lockFile(dir, "s1"))).rejects.toThrow()
  })
})
