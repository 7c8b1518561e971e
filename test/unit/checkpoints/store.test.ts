import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { fixture, openStore, run, treeState, write } from "./support.ts"

describe("checkpoint store: snapshot, changes, read, restore", () => {
  it("restores contents, modes, symbolic links, deleted files and removes added ones: the tree is identical to before", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "a.txt": "one\ntwo\nthree\n", "src/main.ts": "export {}\n", "src/deep/x.bin": Buffer.from([0, 1, 2, 3]), "script.sh": "#!/bin/sh\necho hi\n" })
    fs.chmodSync(path.join(workspace, "script.sh"), 0o755)
    fs.symlinkSync("src/main.ts", path.join(workspace, "link"))
    const before = treeState(workspace)
    const store = await openStore(workspace, home)
    const first = await run(store.snapshot())

    // The turn: edit, delete, chmod, retarget a link, replace a folder by a file, add files and folders.
    write(workspace, { "a.txt": "one\n2\nthree\nfour\n", "new/dir/file.txt": "new\n", "added.txt": "x\n" })
    fs.rmSync(path.join(workspace, "src/main.ts"))
    fs.chmodSync(path.join(workspace, "script.sh"), 0o600)
    fs.rmSync(path.join(workspace, "link"))
    fs.symlinkSync("/etc/passwd", path.join(workspace, "link"))
    fs.rmSync(path.join(workspace, "src/deep"), { recursive: true })
    write(workspace, { "src/deep": "now a file\n" })
    const second = await run(store.snapshot())
    expect(second.id).not.toBe(first.id)

    const changes = await run(store.changes(first.id, second.id))
    expect(changes).toEqual([
      { path: "a.txt", kind: "modified", added: 2, removed: 1, binary: false },
      { path: "added.txt", kind: "added", added: 1, removed: 0, binary: false },
      { path: "link", kind: "modified", added: 0, removed: 0, binary: false },
      { path: "new/dir/file.txt", kind: "added", added: 1, removed: 0, binary: false },
      { path: "script.sh", kind: "modified", added: 0, removed: 0, binary: false },
      { path: "src/deep", kind: "added", added: 1, removed: 0, binary: false },
      { path: "src/deep/x.bin", kind: "deleted", added: 0, removed: 0, binary: true },
      { path: "src/main.ts", kind: "deleted", added: 0, removed: 1, binary: false }
    ])

    await run(store.restore(first.id, changes.map((change) => change.path)))
    expect(treeState(workspace)).toEqual(before)

    // Redo: the later snapshot brings the turn's state back.
    await run(store.restore(second.id, changes.map((change) => change.path)))
    expect(fs.readFileSync(path.join(workspace, "src/deep"), "utf8")).toBe("now a file\n")
    expect(fs.readlinkSync(path.join(workspace, "link"))).toBe("/etc/passwd")
    expect(fs.statSync(path.join(workspace, "script.sh")).mode & 0o777).toBe(0o600)
    expect(fs.existsSync(path.join(workspace, "src/main.ts"))).toBe(false)
  })

  it("reads a path as a snapshot holds it, undefined when absent", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "x/y.txt": "hello\n" })
    fs.chmodSync(path.join(workspace, "x/y.txt"), 0o640)
    fs.symlinkSync("x/y.txt", path.join(workspace, "l"))
    const store = await openStore(workspace, home)
    const { id } = await run(store.snapshot())
    fs.writeFileSync(path.join(workspace, "x/y.txt"), "changed\n")
    const entry = await run(store.read(id, "x/y.txt"))
    expect(entry?.kind === "file" ? [entry.mode, Buffer.from(entry.bytes).toString()] : entry).toEqual([0o640, "hello\n"])
    expect(await run(store.read(id, "l"))).toEqual({ kind: "symlink", target: "x/y.txt" })
    expect(await run(store.read(id, "missing"))).toBeUndefined()
    expect(await run(store.read(id, "x"))).toBeUndefined()
    await expect(run(store.read(id, "../etc/passwd"))).rejects.toThrow(/not a workspace-relative path/)
  })

  it("an unchanged workspace gives the same id; a change seen only through stat (same size, new content) is found", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "a.txt": "aaaa", "b/c.txt": "cccc" })
    const store = await openStore(workspace, home)
    const first = await run(store.snapshot())
    expect((await run(store.snapshot())).id).toBe(first.id)
    fs.writeFileSync(path.join(workspace, "a.txt"), "bbbb")
    const second = await run(store.snapshot())
    expect(second.id).not.toBe(first.id)
    expect(await run(store.changes(first.id, second.id))).toEqual([{ path: "a.txt", kind: "modified", added: 1, removed: 1, binary: false }])
    // A new store (a later session) with the saved index sees the same state.
    const again = await openStore(workspace, home)
    expect((await run(again.snapshot())).id).toBe(second.id)
  })

  it("restore touches only the paths asked for", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "a.txt": "a\n", "b.txt": "b\n" })
    const store = await openStore(workspace, home)
    const first = await run(store.snapshot())
    write(workspace, { "a.txt": "A\n", "b.txt": "B\n", "c.txt": "C\n" })
    await run(store.restore(first.id, ["a.txt"]))
    expect(["a.txt", "b.txt", "c.txt"].map((name) => fs.readFileSync(path.join(workspace, name), "utf8"))).toEqual(["a\n", "B\n", "C\n"])
  })

  it("a folder replaced by a link is not written through: the restore stops unless the link is restored too", async () => {
    const { workspace, home } = await fixture()
    const outside = path.join(path.dirname(workspace), "outside")
    fs.mkdirSync(outside)
    write(workspace, { "src/a.txt": "a\n" })
    const store = await openStore(workspace, home)
    const first = await run(store.snapshot())
    fs.rmSync(path.join(workspace, "src"), { recursive: true })
    fs.symlinkSync(outside, path.join(workspace, "src"))
    await expect(run(store.restore(first.id, ["src/a.txt"]))).rejects.toThrow(/src is no longer a folder/)
    expect(fs.readdirSync(outside)).toEqual([])
    await run(store.restore(first.id, ["src", "src/a.txt"]))
    expect(fs.lstatSync(path.join(workspace, "src")).isDirectory()).toBe(true)
    expect(fs.readFileSync(path.join(workspace, "src/a.txt"), "utf8")).toBe("a\n")
    expect(fs.readdirSync(outside)).toEqual([])
  })
})
