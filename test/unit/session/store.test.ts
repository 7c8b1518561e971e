import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { describe, expect, it } from "vitest"
import { isSessionId } from "../../../src/session/ids.ts"
import { lockFile } from "../../../src/session/lock.ts"
import { makeSessionStore } from "../../../src/session/store.ts"
import { tempDir } from "../../support/temp.ts"

const run = Effect.runPromise

describe("SessionStore", () => {
  it("creates, saves and loads a session with owner-only files", async () => {
    const home = await tempDir()
    const store = makeSessionStore(path.join(home, "sessions"))
    const created = await run(store.save(store.create({ workspace: "/w", model: "local/m", mode: "work", approval: "default" })))
    expect(isSessionId(created.id)).toBe(true)
    const saved = await run(store.save({ ...created, items: [{ _tag: "user", id: "1", text: "hello" }] }))
    const loaded = await run(store.load(created.id))
    expect(loaded).toEqual(saved)
    const file = path.join(home, "sessions", `${created.id}.json`)
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600)
    expect((await fs.stat(path.join(home, "sessions"))).mode & 0o777).toBe(0o700)
  })

  it("loads by an unambiguous prefix and explains an ambiguous one", async () => {
    const store = makeSessionStore(path.join(await tempDir(), "sessions"))
    const a = await run(store.save(store.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" })))
    const b = await run(store.save(store.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" })))
    // The ids differ in their random tail; all but its last digit is (almost surely) unique.
    expect((await run(store.load(a.id.slice(0, -1)))).id).toBe(a.id)
    expect(b.id.slice(0, 8)).toBe(a.id.slice(0, 8))
    const common = a.id.slice(0, 8)
    const result = await run(Effect.either(store.load(common)))
    expect(Either.isLeft(result) && result.left.message).toMatch(/matches 2 sessions/)
    const missing = await run(Effect.either(store.load("nope")))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/no session 'nope'/)
  })

  it("lists newest first and reports unreadable files without touching them", async () => {
    const dir = path.join(await tempDir(), "sessions")
    const store = makeSessionStore(dir)
    const older = await run(store.save(store.create({ workspace: "/a", model: "m/m", mode: "work", approval: "default" })))
    await new Promise((resolve) => setTimeout(resolve, 5))
    const newer = await run(store.save(store.create({ workspace: "/b", model: "m/m", mode: "work", approval: "default" })))
    const broken = path.join(dir, "20200101-000000-000000.json")
    await fs.writeFile(broken, "{ not json")
    const listing = await run(store.list())
    expect(listing.sessions.map((session) => session.id)).toEqual([newer.id, older.id])
    expect(listing.unreadable).toEqual([{ file: broken, reason: `${broken}: not valid JSON; the file was left untouched` }])
    expect(await fs.readFile(broken, "utf8")).toBe("{ not json")
  })

  it("finds the latest session of a workspace", async () => {
    const store = makeSessionStore(path.join(await tempDir(), "sessions"))
    expect(Option.isNone(await run(store.latestForWorkspace("/w")))).toBe(true)
    const first = await run(store.save(store.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" })))
    await run(store.save(store.create({ workspace: "/other", model: "m/m", mode: "work", approval: "default" })))
    await new Promise((resolve) => setTimeout(resolve, 5))
    await run(store.save(first))
    expect(Option.getOrThrow(await run(store.latestForWorkspace("/w"))).id).toBe(first.id)
  })

  it("rejects a file that is JSON but not a session", async () => {
    const dir = path.join(await tempDir(), "sessions")
    await fs.mkdir(dir, { recursive: true })
    await fs.writeFile(path.join(dir, "20200101-000000-abcdef.json"), '{"version": 1}')
    const result = await run(Effect.either(makeSessionStore(dir).load("20200101-000000-abcdef")))
    expect(Either.isLeft(result) && result.left.message).toMatch(/not a Crystal session \(id: /)
  })

  it("lists one workspace's sessions, and still reports every unreadable file", async () => {
    const dir = path.join(await tempDir(), "sessions")
    const store = makeSessionStore(dir)
    const mine = await run(store.save(store.create({ workspace: "/a", model: "m/m", mode: "work", approval: "default" })))
    await run(store.save(store.create({ workspace: "/b", model: "m/m", mode: "work", approval: "default" })))
    await fs.writeFile(path.join(dir, "20200101-000000-000000.json"), "[]")
    const listing = await run(store.list("/a"))
    expect(listing.sessions.map((session) => session.id)).toEqual([mine.id])
    expect(listing.unreadable).toHaveLength(1)
  })

  it("loads a session file written before title and parent existed", async () => {
    const dir = path.join(await tempDir(), "sessions")
    await fs.mkdir(dir, { recursive: true })
    const old = {
      version: 1,
      id: "20250101-000000-abcdef",
      createdAt: "2025-01-01T00:00:00.000Z",
      updatedAt: "2025-01-01T00:00:00.000Z",
      workspace: "/w",
      model: "m/m",
      mode: "work",
      approval: "default",
      items: [{ _tag: "user", id: "1", text: "hi" }],
      usage: { inputTokens: 0, outputTokens: 0 }
    }
    await fs.writeFile(path.join(dir, `${old.id}.json`), JSON.stringify(old))
    const loaded = await run(makeSessionStore(dir).load(old.id))
    expect(loaded.title).toBeUndefined()
    expect(loaded.parent).toBeUndefined()
  })

  it("forks into a new id that names its parent, leaving the parent as it was", async () => {
    const dir = path.join(await tempDir(), "sessions")
    const store = makeSessionStore(dir)
    const parent = await run(
      store.save({
        ...store.create({ workspace: "/w", model: "m/m", mode: "plan", approval: "edit" }),
        title: "Parent",
        items: [{ _tag: "user", id: "1", text: "hello" }],
        todos: [{ content: "a", status: "pending", priority: "high" }]
      })
    )
    const before = await fs.readFile(path.join(dir, `${parent.id}.json`), "utf8")
    const child = await run(store.fork(parent))
    expect(child.id).not.toBe(parent.id)
    expect(isSessionId(child.id)).toBe(true)
    const loaded = await run(store.load(child.id))
    expect(loaded).toMatchObject({ parent: parent.id, title: "Parent", mode: "plan", approval: "edit", items: parent.items, todos: parent.todos })
    expect(await fs.readFile(path.join(dir, `${parent.id}.json`), "utf8")).toBe(before)
    expect((await run(store.list())).sessions.find((session) => session.id === child.id)?.parent).toBe(parent.id)
  })

  it("deletes a session by prefix, and refuses unreadable files and sessions open elsewhere", async () => {
    const dir = path.join(await tempDir(), "sessions")
    const store = makeSessionStore(dir)
    const doomed = await run(store.save(store.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" })))
    expect(await run(store.remove(doomed.id.slice(0, -1)))).toBe(path.join(dir, `${doomed.id}.json`))
    expect((await run(store.list())).sessions).toEqual([])
    await expect(fs.stat(lockFile(dir, doomed.id))).rejects.toThrow()

    const broken = path.join(dir, "20200101-000000-000000.json")
    await fs.writeFile(broken, "{ not json")
    const refused = await run(Effect.either(store.remove("20200101-000000-000000")))
    expect(Either.isLeft(refused) && refused.left.message).toBe(`not deleted: ${broken}: not valid JSON; the file was left untouched`)
    expect(await fs.readFile(broken, "utf8")).toBe("{ not json")

    const open = await run(store.save(store.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" })))
    // The parent of this test process is alive and is not this process: a live owner.
    await fs.writeFile(lockFile(dir, open.id), `${process.ppid}\n`)
    const busy = await run(Effect.either(store.remove(open.id)))
    expect(Either.isLeft(busy) && busy.left.message).toMatch(new RegExp(`session ${open.id} is open in another crystal process \\(pid ${process.ppid}\\)`))
    expect((await run(store.load(open.id))).id).toBe(open.id)
  })
})
