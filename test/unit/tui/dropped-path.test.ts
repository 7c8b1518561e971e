import { spawnSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { droppedImage, isImageFile, parseDroppedPath } from "../../../src/tui/dropped-path.ts"
import { makeFifo, unblockFifoAfter, type FifoGuard } from "../../support/fifo.ts"
import { makePng } from "../../support/images.ts"
import { tempDir } from "../../support/temp.ts"

const guards: Array<FifoGuard> = []
afterEach(() => {
  for (const guard of guards.splice(0)) guard.stop()
})

const root = path.resolve(import.meta.dirname, "..", "..", "..")

describe("a pasted path to an image file (drag and drop)", () => {
  it("reads the spellings terminals use: quoted, backslash-escaped, file:// URLs, ~", () => {
    expect(parseDroppedPath("'/home/me/My Shots/a.png' ")).toBe("/home/me/My Shots/a.png")
    expect(parseDroppedPath('"/home/me/My Shots/a.png"')).toBe("/home/me/My Shots/a.png")
    expect(parseDroppedPath("/home/me/My\\ Shots/a\\(1\\).png")).toBe("/home/me/My Shots/a(1).png")
    expect(parseDroppedPath("file:///home/me/My%20Shots/a.png\n")).toBe("/home/me/My Shots/a.png")
    expect(parseDroppedPath("~/a.png", "/home/me")).toBe("/home/me/a.png")
  })

  it("leaves everything else to be pasted as text", () => {
    expect(parseDroppedPath("a.png")).toBeUndefined()
    expect(parseDroppedPath("see /home/me/a.png")).toBeUndefined()
    expect(parseDroppedPath("/home/me/a.png\n/home/me/b.png")).toBeUndefined()
    expect(parseDroppedPath("https://example.com/a.png")).toBeUndefined()
    expect(parseDroppedPath("'/unclosed")).toBeUndefined()
    expect(parseDroppedPath("")).toBeUndefined()
  })

  it("is an image file by its bytes or, failing those, its name; never a directory or a missing file", async () => {
    const dir = await tempDir()
    await fs.writeFile(path.join(dir, "shot"), makePng(2, 2))
    await fs.writeFile(path.join(dir, "old.bmp"), "BM")
    await fs.writeFile(path.join(dir, "notes.txt"), "hello")
    await fs.mkdir(path.join(dir, "dir.png"))
    expect(isImageFile(path.join(dir, "shot"))).toBe(true)
    expect(isImageFile(path.join(dir, "old.bmp"))).toBe(true)
    expect(isImageFile(path.join(dir, "notes.txt"))).toBe(false)
    expect(isImageFile(path.join(dir, "dir.png"))).toBe(false)
    expect(isImageFile(path.join(dir, "gone.png"))).toBe(false)
    expect(droppedImage(`'${dir}/shot'`)).toBe(path.join(dir, "shot"))
    expect(droppedImage(`${dir}/notes.txt`)).toBeUndefined()
  })

  it("a pasted path to a FIFO named like an image is text, and the FIFO is never opened (the TUI froze in a blocking open)", async () => {
    const dir = await tempDir()
    const fifo = path.join(dir, "shot.png")
    makeFifo(fifo)
    guards.push(unblockFifoAfter(fifo, 60))
    // In a process of its own, killed after 15 s: a blocking open would freeze this test's thread too.
    const bun = path.join(root, "node_modules", ".bin", "bun")
    const check = `import { droppedImage } from "./src/tui/dropped-path.ts"; console.log(String(droppedImage(process.argv.at(-1))))`
    const run = spawnSync(bun, ["-e", check, `'${fifo}'`], { cwd: root, encoding: "utf8", timeout: 15_000 })
    expect({ signal: run.signal, stdout: run.stdout.trim() }).toEqual({ signal: null, stdout: "undefined" })
  }, 20_000)
})
