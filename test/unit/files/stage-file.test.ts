import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { stageFile } from "../../../src/files/atomic.ts"
import { tempDir } from "../../support/temp.ts"

describe("stageFile", () => {
  it("writes under a hidden temp name, runs the overlapped work, and names the file on commit", async () => {
    const dir = await tempDir()
    const data = Buffer.alloc(1024 * 1024, 7)
    const staged = await stageFile(dir, data, { mode: 0o600, whileWriting: () => data.length * 2 })
    expect(staged.result).toBe(2 * 1024 * 1024)
    const [temp] = fs.readdirSync(dir)
    expect(temp).toMatch(/^\.staged\.\d+\.\d+\.\d+\.tmp$/)
    expect(fs.statSync(path.join(dir, temp ?? "")).mode & 0o777).toBe(0o600)
    await staged.commit(path.join(dir, "named"))
    expect(fs.readdirSync(dir)).toEqual(["named"])
    expect(fs.readFileSync(path.join(dir, "named")).equals(data)).toBe(true)
  })

  it("leaves nothing behind when discarded or when the overlapped work throws", async () => {
    const dir = await tempDir()
    await (await stageFile(dir, "x")).discard()
    expect(fs.readdirSync(dir)).toEqual([])
    await expect(
      stageFile(dir, "y", {
        whileWriting: () => {
          throw new Error("hash failed")
        }
      })
    ).rejects.toThrow("hash failed")
    expect(fs.readdirSync(dir)).toEqual([])
  })
})
