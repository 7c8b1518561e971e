/** applyRewind over a real store (issue 25 review): one ordered pass across snapshots, and a rewind that stops partway stays rewindable. */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import type { CheckpointStoreShape } from "../../../src/checkpoints/store.ts"
import { applyRewind, prepareRewind, RewindError } from "../../../src/engine/rewind.ts"
import type { CheckpointRecord } from "../../../src/session/checkpoint-records.ts"
import type { SessionDocument } from "../../../src/session/document.ts"
import { fixture, openStore, run, write } from "../checkpoints/support.ts"

const turnRecord = async (store: CheckpointStoreShape, turn: number, before: string, after: string): Promise<CheckpointRecord> => ({
  turn,
  kind: "turn",
  messageId: `m${turn}`,
  prompt: "p",
  at: new Date().toISOString(),
  before,
  after,
  files: await run(store.changes(before, after))
})

const docWith = (records: ReadonlyArray<CheckpointRecord>): SessionDocument => ({ id: "s", items: [], checkpoints: records }) as unknown as SessionDocument

describe("applyRewind", () => {
  it("restores paths from several snapshots in one pass: a folder a later turn made a link is replaced before the files under it are written", async () => {
    const { workspace, home } = await fixture()
    const outside = path.join(path.dirname(workspace), "outside")
    fs.mkdirSync(outside)
    write(workspace, { a: "a0", "d/x": "x0" })
    const store = await openStore(workspace, home)
    const b1 = await run(store.snapshot())
    write(workspace, { a: "a1", "d/x": "x1" })
    const a1 = await run(store.snapshot())
    fs.rmSync(path.join(workspace, "d"), { recursive: true })
    fs.symlinkSync(outside, path.join(workspace, "d"))
    const a2 = await run(store.snapshot())
    const doc = docWith([await turnRecord(store, 1, b1.id, a1.id), await turnRecord(store, 2, a1.id, a2.id)])
    const prepared = await run(prepareRewind(store, doc, 1, "files"))
    await run(applyRewind(store, doc, prepared, new Set()))
    expect(fs.readFileSync(path.join(workspace, "a"), "utf8")).toBe("a0")
    expect(fs.lstatSync(path.join(workspace, "d")).isDirectory()).toBe(true)
    expect(fs.readFileSync(path.join(workspace, "d/x"), "utf8")).toBe("x0")
    expect(fs.readdirSync(outside)).toEqual([])
  })

  it("a rewind that stops partway says so in one line and hands back a record that puts the written files back", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { a: "a0", f: "f0" })
    const store = await openStore(workspace, home)
    const b1 = await run(store.snapshot())
    write(workspace, { a: "a1", f: "f1" })
    const a1 = await run(store.snapshot())
    // The operator replaces f by a folder that is not empty: writing f back must fail, after a was written.
    fs.rmSync(path.join(workspace, "f"))
    write(workspace, { "f/g": "mine" })
    const doc = docWith([await turnRecord(store, 1, b1.id, a1.id)])
    const prepared = await run(prepareRewind(store, doc, 1, "files"))
    const failed = await Effect.runPromise(Effect.flip(applyRewind(store, doc, prepared, new Set(["f"]))))
    expect(failed).toBeInstanceOf(RewindError)
    expect(failed.message).toMatch(/^rewind stopped partway: .*f: a folder that is not empty is there now; 1 file\(s\) already changed, the conversation is as it was \(checkpoint 2/)
    expect(failed.message).not.toContain("\n")
    expect(fs.readFileSync(path.join(workspace, "a"), "utf8")).toBe("a0")
    const partial = failed.partial
    expect(partial?.record.files?.map((file) => file.path)).toEqual(["a"])
    const kept = await run(store.kept())
    expect(kept.find((entry) => entry.key.endsWith("/2"))?.ids).toEqual([prepared.now?.id, partial?.record.after])
    // Saved, the partial record is rewindable: a is as it was before the rewind began.
    const after = docWith(partial?.records ?? [])
    const back = await run(prepareRewind(store, after, 2, "files"))
    await run(applyRewind(store, after, back, new Set()))
    expect(fs.readFileSync(path.join(workspace, "a"), "utf8")).toBe("a1")
    expect(fs.readFileSync(path.join(workspace, "f/g"), "utf8")).toBe("mine")
  })
  it("an edit made while the operator was asked stops the rewind with one line and is not overwritten; the fresh state is the record's before", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { a: "a0", b: "b0" })
    const store = await openStore(workspace, home)
    const b1 = await run(store.snapshot())
    write(workspace, { a: "a1", b: "b1" })
    const a1 = await run(store.snapshot())
    const doc = docWith([await turnRecord(store, 1, b1.id, a1.id)])
    const prepared = await run(prepareRewind(store, doc, 1, "files"))
    write(workspace, { a: "typed during the dialog" })
    const failed = await Effect.runPromise(Effect.flip(applyRewind(store, doc, prepared, new Set())))
    expect(failed.message).toBe("changed while you were asked: a; run /rewind again")
    expect(fs.readFileSync(path.join(workspace, "a"), "utf8")).toBe("typed during the dialog")
    expect(fs.readFileSync(path.join(workspace, "b"), "utf8")).toBe("b1")
    // An edit to a path the rewind does not touch is fine, and lands in the record's "before".
    write(workspace, { a: "a1", c: "new elsewhere" })
    const again = await run(prepareRewind(store, doc, 1, "files"))
    write(workspace, { c: "edited during the dialog" })
    const applied = await run(applyRewind(store, doc, again, new Set()))
    expect(applied.record.before).not.toBe(again.now?.id)
    expect(await run(store.read(applied.record.before ?? "", "c"))).toMatchObject({ kind: "file", bytes: new TextEncoder().encode("edited during the dialog") })
    expect(fs.readFileSync(path.join(workspace, "a"), "utf8")).toBe("a0")
  })
})
