import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { storeDirFor } from "../../../src/checkpoints/open.ts"
import { fixture, openStore, run, write } from "./support.ts"

/** Every file under the store, in bytes: what the bound is about. */
const storeBytes = (dir: string): number => {
  let total = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size
  }
  return total
}

const tempsIn = (dir: string): Array<string> =>
  fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith(".tmp"))

const day = 24 * 60 * 60 * 1000

describe("checkpoint store bounds", () => {
  it("over 200 turns, prune keeps the store under maxBytes by dropping the oldest checkpoints whole; the newest stay restorable", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "fixed.txt": "stays the same\n" })
    const maxBytes = 400_000
    const store = await openStore(workspace, home, { maxBytes })
    const dir = storeDirFor(workspace, home)
    const start = Date.now() - 300_000
    let previous = (await run(store.snapshot())).id
    for (let turn = 0; turn < 200; turn++) {
      // 8 KiB of incompressible bytes per turn: 200 turns hold ~1.6 MB, four times the bound.
      write(workspace, { [`turn-${turn % 7}.bin`]: randomBytes(8192) })
      const after = (await run(store.snapshot())).id
      await run(store.keep(`session/${turn}`, [previous, after], new Date(start + turn * 1000)))
      previous = after
      const report = await run(store.prune())
      expect(report.bytesAfter).toBeLessThanOrEqual(maxBytes)
      expect(storeBytes(dir)).toBeLessThanOrEqual(maxBytes)
    }
    const kept = await run(store.kept())
    expect(kept.length).toBeGreaterThan(10)
    expect(kept.length).toBeLessThan(200)
    expect(kept.at(-1)?.key).toBe("session/199")
    expect(kept.map((entry) => entry.key)).toEqual(Array.from({ length: kept.length }, (_, i) => `session/${200 - kept.length + i}`))
    // Every snapshot a kept key names reads back whole.
    for (const entry of kept) for (const id of entry.ids) expect(await run(store.read(id, "fixed.txt"))).toBeDefined()
    const oldest = kept[0]?.ids[0] ?? ""
    await run(store.restore(oldest, [`turn-${(200 - kept.length) % 7}.bin`]))
    expect(tempsIn(dir)).toEqual([])
  }, 120_000)

  it("keepDays drops old checkpoints; forget drops a session's keys but content another key holds stays", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "shared.txt": "shared\n" })
    const store = await openStore(workspace, home, { keepDays: 30 })
    const shared = (await run(store.snapshot())).id
    write(workspace, { "only-a.txt": "a\n" })
    const onlyA = (await run(store.snapshot())).id
    fs.rmSync(path.join(workspace, "only-a.txt"))
    write(workspace, { "only-b.txt": "b\n" })
    const onlyB = (await run(store.snapshot())).id
    await run(store.keep("old/1", [shared], new Date(Date.now() - 31 * day)))
    await run(store.keep("a/1", [shared, onlyA], new Date()))
    await run(store.keep("b/1", [shared, onlyB], new Date()))
    const pruned = await run(store.prune())
    expect(pruned.checkpointsRemoved).toBe(1)
    expect((await run(store.kept())).map((entry) => entry.key)).toEqual(["a/1", "b/1"])

    await run(store.forget("a/"))
    expect((await run(store.kept())).map((entry) => entry.key)).toEqual(["b/1"])
    // onlyB is this process's last snapshot, kept anyway; onlyA is held by nothing now.
    await run(store.prune())
    expect(await run(store.read(shared, "shared.txt"))).toBeDefined()
    expect(await run(store.read(onlyB, "only-b.txt"))).toBeDefined()
    await expect(run(store.read(onlyA, "only-a.txt"))).rejects.toThrow(/missing/)
  })

  it("a snapshot taken but not kept yet survives a prune; the next snapshot after a prune is whole", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "a.txt": "1\n" })
    const store = await openStore(workspace, home, { maxBytes: 1 })
    const before = (await run(store.snapshot())).id
    write(workspace, { "a.txt": "2\n" })
    const after = (await run(store.snapshot())).id
    await run(store.prune())
    expect(await run(store.read(before, "a.txt"))).toBeDefined()
    expect(await run(store.read(after, "a.txt"))).toBeDefined()
    await run(store.keep("s/1", [before, after], new Date()))
    await run(store.prune())
    // The key is over the bound and goes; the last snapshot stays (the stat index names its objects).
    expect(await run(store.kept())).toEqual([])
    write(workspace, { "b.txt": "new\n" })
    const next = (await run(store.snapshot())).id
    const entry = await run(store.read(next, "a.txt"))
    expect(entry?.kind === "file" ? Buffer.from(entry.bytes).toString() : entry).toBe("2\n")
  })
})
