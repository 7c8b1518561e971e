import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { saveLateTitle } from "../../../src/session/late-title.ts"
import { lockFile } from "../../../src/session/lock.ts"
import { makeSessionStore } from "../../../src/session/store.ts"
import { tempDir } from "../../support/temp.ts"

const savedSession = async (title?: string) => {
  const store = makeSessionStore(path.join(await tempDir(), "sessions"))
  const doc = store.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" })
  await Effect.runPromise(store.save({ ...doc, items: [{ _tag: "note", id: "n", text: "kept" }], ...(title === undefined ? {} : { title }) }))
  return { store, id: doc.id, file: path.join(store.dir, fs.readdirSync(store.dir).find((name) => name.endsWith(".json")) ?? "") }
}

describe("a title that arrives after its session was closed", () => {
  it("is written onto the file as it is now, under the lock, which is released after", async () => {
    const { store, id } = await savedSession()
    expect(await Effect.runPromise(saveLateTitle(store, id, "Fixing the build"))).toBe("saved")
    const doc = await Effect.runPromise(store.load(id))
    expect(doc.title).toBe("Fixing the build")
    expect(doc.items).toHaveLength(1)
    expect(fs.existsSync(lockFile(store.dir, id))).toBe(false)
  })

  it("never replaces a title", async () => {
    const { store, id, file } = await savedSession("Chosen by hand")
    const before = fs.readFileSync(file, "utf8")
    expect(await Effect.runPromise(saveLateTitle(store, id, "Other"))).toBe("already titled")
    expect(fs.readFileSync(file, "utf8")).toBe(before)
  })

  it("leaves alone a session another live process has opened", async () => {
    const { store, id, file } = await savedSession()
    const other = spawn("sleep", ["30"], { stdio: "ignore" })
    try {
      fs.writeFileSync(lockFile(store.dir, id), `${other.pid}\n`)
      const before = fs.readFileSync(file, "utf8")
      expect(await Effect.runPromise(saveLateTitle(store, id, "Late"))).toBe("open elsewhere")
      expect(fs.readFileSync(file, "utf8")).toBe(before)
      expect(fs.readFileSync(lockFile(store.dir, id), "utf8")).toBe(`${other.pid}\n`)
    } finally {
      other.kill()
    }
  })
})
