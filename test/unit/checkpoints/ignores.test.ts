import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { fixture, openStore, run, treeState, write } from "./support.ts"

describe("what a checkpoint leaves out", () => {
  it("gitignored files (and .ignore, and .git) are never recorded, listed, restored or removed", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { ".gitignore": "build/\n*.log\n", "src/a.ts": "a\n", "build/old.js": "old\n", "debug.log": "before\n", ".git/HEAD": "ref: refs/heads/main\n" })
    write(workspace, { "sub/.ignore": "secret.txt\n", "sub/secret.txt": "s\n" })
    const store = await openStore(workspace, home)
    const first = await run(store.snapshot())
    expect(await run(store.read(first.id, "build/old.js"))).toBeUndefined()
    expect(await run(store.read(first.id, "debug.log"))).toBeUndefined()
    expect(await run(store.read(first.id, "sub/secret.txt"))).toBeUndefined()
    expect(await run(store.read(first.id, ".git/HEAD"))).toBeUndefined()

    write(workspace, { "src/a.ts": "A\n", "build/new.js": "new\n", "debug.log": "after\n", "sub/secret.txt": "S\n", ".git/HEAD": "ref: refs/heads/other\n" })
    fs.rmSync(path.join(workspace, "build/old.js"))
    const second = await run(store.snapshot())
    const changes = await run(store.changes(first.id, second.id))
    expect(changes.map((change) => change.path)).toEqual(["src/a.ts"])

    const ignoredAfter = treeState(workspace, { skip: ["src"] })
    // Asked for by name, ignored paths are still left alone: neither removed (new.js) nor written (old.js, debug.log).
    await run(store.restore(first.id, ["src/a.ts", "build/new.js", "build/old.js", "debug.log", "sub/secret.txt", ".git/HEAD"]))
    expect(fs.readFileSync(path.join(workspace, "src/a.ts"), "utf8")).toBe("a\n")
    expect(treeState(workspace, { skip: ["src"] })).toEqual(ignoredAfter)
  })

  it("files over maxFileBytes are skipped and listed, and a restore never removes or overwrites them", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "big.bin": Buffer.alloc(2048, 1), "small.txt": "s\n" })
    const store = await openStore(workspace, home, { maxFileBytes: 1024 })
    const first = await run(store.snapshot())
    expect(first.skipped).toEqual([{ path: "big.bin", bytes: 2048 }])
    expect(await run(store.read(first.id, "big.bin"))).toBeUndefined()
    write(workspace, { "big.bin": Buffer.alloc(4096, 2), "huge.bin": Buffer.alloc(3000, 3) })
    const second = await run(store.snapshot())
    expect(second.skipped).toEqual([
      { path: "big.bin", bytes: 4096 },
      { path: "huge.bin", bytes: 3000 }
    ])
    expect(await run(store.changes(first.id, second.id))).toEqual([])
    await run(store.restore(first.id, ["big.bin", "huge.bin"]))
    expect(fs.statSync(path.join(workspace, "big.bin")).size).toBe(4096)
    expect(fs.statSync(path.join(workspace, "huge.bin")).size).toBe(3000)

    // A recorded file that grows past the bound is a change; rewinding puts the recorded one back.
    write(workspace, { "small.txt": Buffer.alloc(5000, 4) })
    const third = await run(store.snapshot())
    expect(await run(store.changes(second.id, third.id))).toEqual([{ path: "small.txt", kind: "modified", added: 0, removed: 0, binary: true }])
    await run(store.restore(second.id, ["small.txt"]))
    expect(fs.readFileSync(path.join(workspace, "small.txt"), "utf8")).toBe("s\n")
  })
})
