/** Session export (SPEC S1, seed 003): one self-contained JSON file, images inlined where their bytes exist. */
import { makeMediaStore } from "../../../src/media/media-store.ts"
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { SessionDocument } from "../../../src/session/document.ts"
import { exportFormat, exportSession } from "../../../src/session/export.ts"
import { makeSessionStore } from "../../../src/session/store.ts"
import { tempDir } from "../../support/temp.ts"

const sha = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

describe("session export", () => {
  it("inlines the bytes of available images, keeps the reference of missing or changed ones, and reloads as a session", async () => {
    const root = await tempDir()
    const mediaDir = path.join(root, "media")
    await fs.mkdir(mediaDir)
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])
    const present = sha(png)
    await fs.writeFile(path.join(mediaDir, present), png)
    const changed = sha(new Uint8Array([9, 9, 9]))
    await fs.writeFile(path.join(mediaDir, changed), "not those bytes")
    const missing = sha(new Uint8Array([7]))
    const store = makeSessionStore(path.join(root, "sessions"))
    const doc = await Effect.runPromise(
      store.save({
        ...store.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" }),
        title: "Pictures",
        items: [
          { _tag: "user", id: "1", text: "look [Image #1] [Image #2]", images: [{ sha256: present, mime: "image/png", marker: "[Image #1]" }, { sha256: missing, mime: "image/png" }] },
          { _tag: "assistant", id: "2", text: "Seen.", model: "m/m" },
          { _tag: "tool_result", id: "3", callId: "c", name: "view_image", text: "", isError: false, images: [{ sha256: changed, mime: "image/jpeg" }, { sha256: present, mime: "image/png" }] }
        ]
      })
    )
    const file = path.join(root, "out", "export.json")
    const result = await Effect.runPromise(exportSession(doc, makeMediaStore(mediaDir), file))
    expect(result).toEqual({ file, missingImages: [missing, changed] })
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600)
    const exported = JSON.parse(await fs.readFile(file, "utf8"))
    expect(exported).toMatchObject({ format: exportFormat, version: 1, exportedAt: expect.any(String) })
    const base64 = Buffer.from(png).toString("base64")
    expect(exported.session.items[0].images).toEqual([
      { sha256: present, mime: "image/png", marker: "[Image #1]", data: base64 },
      { sha256: missing, mime: "image/png" }
    ])
    expect(exported.session.items[2].images).toEqual([{ sha256: changed, mime: "image/jpeg" }, { sha256: present, mime: "image/png", data: base64 }])
    // The exported session is still a session document (the data fields aside).
    const reloaded = Schema.decodeUnknownSync(SessionDocument)(exported.session)
    expect(reloaded).toEqual(doc)
  })

  it("inlines the images of children at every depth and names the missing ones", async () => {
    const root = await tempDir()
    const mediaDir = path.join(root, "media")
    await fs.mkdir(mediaDir)
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 4, 5, 6])
    const present = sha(png)
    await fs.writeFile(path.join(mediaDir, present), png)
    const missing = sha(new Uint8Array([8]))
    const store = makeSessionStore(path.join(root, "sessions"))
    const usage = { inputTokens: 0, outputTokens: 0 }
    const child = (items: ReadonlyArray<unknown>, agents?: Record<string, unknown>) => ({
      agent: "viewer", index: 1, description: "look", status: "done", mode: "work", model: "m/m", items, usage, ...(agents === undefined ? {} : { agents })
    })
    const seen = (id: string, sha256: string) => [{ _tag: "tool_result", id, callId: `c${id}`, name: "view_image", text: "", isError: false, images: [{ sha256, mime: "image/png" }] }]
    const doc = Schema.decodeUnknownSync(SessionDocument)({
      ...store.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" }),
      items: [{ _tag: "user", id: "1", text: "go" }],
      agents: { call_mid: child(seen("m", present), { call_leaf: child(seen("l", missing)) }) }
    })
    const file = path.join(root, "export.json")
    const result = await Effect.runPromise(exportSession(doc, makeMediaStore(mediaDir), file))
    expect(result.missingImages).toEqual([missing])
    const exported = JSON.parse(await fs.readFile(file, "utf8"))
    const mid = exported.session.agents.call_mid
    expect(mid.items[0].images).toEqual([{ sha256: present, mime: "image/png", data: Buffer.from(png).toString("base64") }])
    expect(mid.agents.call_leaf.items[0].images).toEqual([{ sha256: missing, mime: "image/png" }])
  })

  it("never replaces a file the operator wrote; an earlier export is replaced", async () => {
    const root = await tempDir()
    const store = makeSessionStore(path.join(root, "sessions"))
    const doc = store.create({ workspace: "/w", model: "m/m", mode: "work", approval: "default" })
    const notes = path.join(root, "notes.md")
    await fs.writeFile(notes, "precious notes\n")
    const refused = await Effect.runPromise(Effect.flip(exportSession(doc, makeMediaStore(path.join(root, "media")), notes)))
    expect(refused.message).toBe(`not exported: ${notes}: it exists and is not a Crystal session export; choose another file (it was left untouched)`)
    expect(await fs.readFile(notes, "utf8")).toBe("precious notes\n")
    const file = path.join(root, "export.json")
    await Effect.runPromise(exportSession(doc, makeMediaStore(path.join(root, "media")), file))
    await Effect.runPromise(exportSession({ ...doc, title: "Again" }, makeMediaStore(path.join(root, "media")), file))
    expect(JSON.parse(await fs.readFile(file, "utf8")).session.title).toBe("Again")
  })
})
