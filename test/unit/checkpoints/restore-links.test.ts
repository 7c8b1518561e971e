/** Restore never removes or writes through a folder that a later turn replaced by a link (issue 25 review). */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { fixture, openStore, run, write } from "./support.ts"

describe("checkpoint restore: links planted in place of folders", () => {
  it("rewinding a turn that added d/x does not delete outside/x when d is now a link to outside", async () => {
    const { workspace, home } = await fixture()
    const outside = path.join(path.dirname(workspace), "outside")
    fs.mkdirSync(outside)
    fs.writeFileSync(path.join(outside, "x"), "precious")
    const store = await openStore(workspace, home)
    const before = await run(store.snapshot())
    write(workspace, { a: "a", "d/x": "turn1" })
    const turn1 = await run(store.snapshot())
    fs.rmSync(path.join(workspace, "d"), { recursive: true })
    fs.symlinkSync(outside, path.join(workspace, "d"))
    // Only d/x is asked for (the link itself is not): nothing may be removed through the link.
    await run(store.restore(before.id, ["a", "d/x"])).catch(() => undefined)
    expect(fs.readFileSync(path.join(outside, "x"), "utf8")).toBe("precious")
    // Asked together with the link: the link goes, outside/x stays.
    await run(store.restore(before.id, ["d", "d/x"]))
    expect(fs.readFileSync(path.join(outside, "x"), "utf8")).toBe("precious")
    expect(fs.existsSync(path.join(workspace, "d"))).toBe(false)
    expect(turn1.id).not.toBe(before.id)
  })

  it("a write under a parent that is now a link is refused with a message naming it, and writes nothing outside", async () => {
    const { workspace, home } = await fixture()
    const outside = path.join(path.dirname(workspace), "outside")
    fs.mkdirSync(outside)
    write(workspace, { "d/x": "x0" })
    const store = await openStore(workspace, home)
    const first = await run(store.snapshot())
    fs.rmSync(path.join(workspace, "d"), { recursive: true })
    fs.symlinkSync(outside, path.join(workspace, "d"))
    await expect(run(store.restore(first.id, ["d/x"]))).rejects.toThrow(/d is no longer a folder/)
    expect(fs.readdirSync(outside)).toEqual([])
  })
})
