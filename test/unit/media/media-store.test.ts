import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { sha256Of } from "../../../src/media/hash.ts"
import { makeMediaStore, makeMemoryMediaStore, maxImageBytes } from "../../../src/media/media-store.ts"
import { makePng } from "../../support/images.ts"

let base: string
let dir: string
beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-media-"))
  dir = path.join(base, "media")
})
afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
const failure = async <A, E>(effect: Effect.Effect<A, E>): Promise<E> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") throw new Error(`expected a failure, got ${String(exit)}`)
  return exit.cause.error
}

/** Bytes of exactly `size` that begin like a PNG (the cap looks at the length, the type at the start). */
const pngSized = (size: number): Buffer => {
  const bytes = Buffer.alloc(size)
  makePng(1, 1).copy(bytes)
  return bytes
}

describe("MediaStore on disk", () => {
  it("keeps an image under its sha256, owner-only, and reads it back", async () => {
    const store = makeMediaStore(dir)
    const png = makePng(4, 3)
    const stored = await run(store.put(png, "shot.png"))
    expect(stored).toEqual({ sha256: sha256Of(png), mime: "image/png", bytes: png.length, size: { width: 4, height: 3 } })
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    expect(fs.statSync(path.join(dir, stored.sha256)).mode & 0o777).toBe(0o600)
    expect(Buffer.from(await run(store.read(stored.sha256))).equals(png)).toBe(true)
    expect(fs.readdirSync(dir)).toEqual([stored.sha256])
  })

  it("narrows a media directory that an earlier version left readable by others", async () => {
    fs.mkdirSync(dir, { mode: 0o755 })
    fs.chmodSync(dir, 0o755)
    await run(makeMediaStore(dir).put(makePng(1, 1), "x"))
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
  })

  it("writes the same content once", async () => {
    const store = makeMediaStore(dir)
    const png = makePng(5, 5)
    const first = await run(store.put(png, "a"))
    const mtime = fs.statSync(path.join(dir, first.sha256)).mtimeMs
    await new Promise((resolve) => setTimeout(resolve, 20))
    const second = await run(store.put(Buffer.from(png), "b"))
    expect(second.sha256).toBe(first.sha256)
    expect(fs.statSync(path.join(dir, first.sha256)).mtimeMs).toBe(mtime)
    expect(fs.readdirSync(dir)).toHaveLength(1)
  })

  it("replaces a damaged copy when the same image comes again", async () => {
    const store = makeMediaStore(dir)
    const png = makePng(5, 5)
    const { sha256 } = await run(store.put(png, "a"))
    fs.writeFileSync(path.join(dir, sha256), "damaged")
    await run(store.put(png, "a"))
    expect(Buffer.from(await run(store.read(sha256))).equals(png)).toBe(true)
  })

  it("takes exactly 20 MiB and refuses one byte more, naming the source and both sizes", async () => {
    const store = makeMediaStore(dir)
    expect((await run(store.put(pngSized(maxImageBytes), "big.png"))).bytes).toBe(maxImageBytes)
    const error = await failure(store.put(pngSized(maxImageBytes + 1), "bigger.png"))
    expect(error._tag).toBe("ImageTooLarge")
    expect(error.message).toBe(`bigger.png is too large: ${maxImageBytes + 1} bytes, the limit is ${maxImageBytes} bytes`)
    expect(fs.readdirSync(dir)).toHaveLength(1)
  })

  it("refuses what is not an image, saying what it saw, and writes nothing", async () => {
    const store = makeMediaStore(dir)
    const error = await failure(store.put(Buffer.from("%PDF-1.4 ..."), "report.png"))
    expect(error._tag).toBe("UnsupportedImage")
    expect(error.message).toBe("report.png is not a supported image (png, jpeg, gif or webp): it is a PDF document")
    expect(fs.existsSync(dir)).toBe(false)
  })

  it("reports a missing, altered or ill-named file on read", async () => {
    const store = makeMediaStore(dir)
    const { sha256 } = await run(store.put(makePng(2, 2), "a"))
    fs.appendFileSync(path.join(dir, sha256), "x")
    expect((await failure(store.read(sha256))).reason).toBe("altered")
    fs.rmSync(path.join(dir, sha256))
    expect((await failure(store.read(sha256))).reason).toBe("missing")
    expect((await failure(store.read("../../etc/passwd"))).reason).toBe("missing")
  })

  it("never shows a partial file under its name when the writer is killed mid-write", async () => {
    // A child stores 1 MiB images in a loop; it is killed at an arbitrary moment. Every file under
    // a hash name must hold exactly the bytes of that hash; a torn write may only leave a dot-temp.
    const bun = path.resolve("node_modules", ".bin", "bun")
    const writer = path.resolve("test", "support", "media-writer.ts")
    for (let round = 0; round < 3; round++) {
      const child = spawn(bun, [writer, dir, String(round * 1000)], { stdio: ["ignore", "pipe", "inherit"] })
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
      await new Promise((resolve) => setTimeout(resolve, 5 + round * 17))
      child.kill("SIGKILL")
      await new Promise((resolve) => child.once("exit", resolve))
    }
    const names = fs.readdirSync(dir)
    const kept = names.filter((name) => !name.startsWith("."))
    expect(kept.length).toBeGreaterThanOrEqual(9)
    for (const name of kept) expect(sha256Of(fs.readFileSync(path.join(dir, name)))).toBe(name)
  })
})

describe("MediaStore in memory", () => {
  it("checks like the disk store and returns what it kept", async () => {
    const store = makeMemoryMediaStore()
    const png = makePng(2, 2)
    const { sha256 } = await run(store.put(png, "a"))
    expect(Buffer.from(await run(store.read(sha256))).equals(png)).toBe(true)
    expect((await failure(store.put(Buffer.from("text"), "b")))._tag).toBe("UnsupportedImage")
    expect((await failure(store.read("0".repeat(64)))).reason).toBe("missing")
  })
})
