import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { fixture, openStore, run, write } from "./support.ts"

/** Sets every mtime under `root` (itself included) a minute back: old enough for the store to trust its cached listings. */
const age = (root: string): void => {
  const old = new Date(Date.now() - 60_000)
  for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isSymbolicLink()) fs.utimesSync(path.join(entry.parentPath, entry.name), old, old)
  }
  fs.utimesSync(root, old, old)
}

/** Writes a file in place (same inode, the folder's mtime unchanged), then ages it. */
const rewriteInPlace = (file: string, text: string): void => {
  const fd = fs.openSync(file, "r+")
  fs.ftruncateSync(fd, 0)
  fs.writeSync(fd, text, 0)
  fs.closeSync(fd)
}

const paths = async (store: Awaited<ReturnType<typeof openStore>>, from: string, to: string): Promise<Array<string>> =>
  (await run(store.changes(from, to))).map((change) => `${change.kind} ${change.path}`)

describe("cached folder listings (an unchanged folder is not listed again)", () => {
  it("an ignore file edited in place, or a new one in a folder above, changes what deeper unchanged folders select", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { ".gitignore": "*.log\n", "a/b/c/keep.ts": "k\n", "a/b/c/gen.out": "g\n", "a/b/c/x.log": "x\n", "a/other.ts": "o\n" })
    age(workspace)
    const store = await openStore(workspace, home)
    const first = (await run(store.snapshot())).id
    expect((await run(store.snapshot())).id).toBe(first)

    // The top .gitignore rewritten in place: no folder's mtime moves.
    rewriteInPlace(path.join(workspace, ".gitignore"), "*.out\n")
    const old = new Date(Date.now() - 50_000)
    fs.utimesSync(path.join(workspace, ".gitignore"), old, new Date(Date.now() - 40_000))
    const second = (await run(store.snapshot())).id
    expect(await paths(store, first, second)).toEqual(["modified .gitignore", "deleted a/b/c/gen.out", "added a/b/c/x.log"])

    // A new ignore file in a/ (a's mtime moves; a/b and a/b/c do not) hides a file two folders down.
    age(workspace)
    await run(store.snapshot())
    const third = (await run(store.snapshot())).id
    write(workspace, { "a/.ignore": "keep.ts\n" })
    const fourth = (await run(store.snapshot())).id
    expect(await paths(store, third, fourth)).toEqual(["added a/.ignore", "deleted a/b/c/keep.ts"])
  })

  it("a file added deep in an unchanged tree, and a file removed, are seen", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "a/b/c/one.ts": "1\n", "a/b/two.ts": "2\n" })
    age(workspace)
    const store = await openStore(workspace, home)
    const first = (await run(store.snapshot())).id
    write(workspace, { "a/b/c/three.ts": "3\n" })
    fs.rmSync(path.join(workspace, "a/b/two.ts"))
    const second = (await run(store.snapshot())).id
    expect(await paths(store, first, second)).toEqual(["added a/b/c/three.ts", "deleted a/b/two.ts"])
    // A later session reads the saved listings and sees the same.
    const again = await openStore(workspace, home)
    expect((await run(again.snapshot())).id).toBe(second)
  })
})
