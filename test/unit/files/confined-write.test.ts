import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { writeConfined, type ConfinedWrite } from "../../../src/files/confined-write.ts"
import { makeFifo } from "../../support/fifo.ts"
import { tempDir } from "../../support/temp.ts"

const refusal = (result: ConfinedWrite): string => {
  expect(result._tag).toBe("Refused")
  return result._tag === "Refused" ? result.reason : ""
}

/** The folder's entries but the ones a test planted: a refused write leaves no temp file behind. */
const entries = (dir: string): ReadonlyArray<string> => fs.readdirSync(dir).sort()

describe("writeConfined", () => {
  it("makes the missing folders and writes the file with the given mode, replacing it whole", async () => {
    const root = path.join(await tempDir("crystal-cw-"), "home")
    const target = { root, folders: ["plans", "deep"], name: "s1.md" }
    expect(writeConfined(target, "first version, longer\n", 0o600)).toEqual({ _tag: "Written", file: path.join(root, "plans", "deep", "s1.md") })
    expect(writeConfined(target, "second\n", 0o600)._tag).toBe("Written")
    const file = path.join(root, "plans", "deep", "s1.md")
    expect(fs.readFileSync(file, "utf8")).toBe("second\n")
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.join(root, "plans")).mode & 0o777).toBe(0o700)
    expect(entries(path.dirname(file))).toEqual(["s1.md"])
  })

  it("accepts a root that is itself a symbolic link (the home may be one)", async () => {
    const base = await tempDir("crystal-cw-")
    fs.mkdirSync(path.join(base, "real"))
    fs.symlinkSync(path.join(base, "real"), path.join(base, "alias"))
    expect(writeConfined({ root: path.join(base, "alias"), folders: ["plans"], name: "p.md" }, "x", 0o644)._tag).toBe("Written")
    expect(fs.readFileSync(path.join(base, "real", "plans", "p.md"), "utf8")).toBe("x")
  })

  it("refuses a file that is a symbolic link, and leaves the link and its target untouched", async () => {
    const base = await tempDir("crystal-cw-")
    const outside = path.join(base, "outside.txt")
    fs.writeFileSync(outside, "keep me\n")
    fs.mkdirSync(path.join(base, "ws", "plans"), { recursive: true })
    const link = path.join(base, "ws", "plans", "p.md")
    fs.symlinkSync(outside, link)
    expect(refusal(writeConfined({ root: path.join(base, "ws"), folders: ["plans"], name: "p.md" }, "planted", 0o644))).toBe(`${link} is a symbolic link`)
    expect(fs.readFileSync(outside, "utf8")).toBe("keep me\n")
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
    expect(entries(path.join(base, "ws", "plans"))).toEqual(["p.md"])
  })

  it("refuses a dangling link where the file goes (writing through it would create its target)", async () => {
    const base = await tempDir("crystal-cw-")
    fs.mkdirSync(path.join(base, "ws", "plans"), { recursive: true })
    fs.symlinkSync(path.join(base, "created-outside.txt"), path.join(base, "ws", "plans", "p.md"))
    expect(refusal(writeConfined({ root: path.join(base, "ws"), folders: ["plans"], name: "p.md" }, "planted", 0o644))).toMatch(/is a symbolic link$/)
    expect(fs.existsSync(path.join(base, "created-outside.txt"))).toBe(false)
  })

  it("refuses a folder on the way that is a symbolic link, even one to a real folder, writing nothing there", async () => {
    const base = await tempDir("crystal-cw-")
    const elsewhere = path.join(base, "elsewhere")
    fs.mkdirSync(elsewhere)
    fs.mkdirSync(path.join(base, "ws", ".crystal"), { recursive: true })
    fs.symlinkSync(elsewhere, path.join(base, "ws", ".crystal", "plans"))
    const reason = refusal(writeConfined({ root: path.join(base, "ws"), folders: [".crystal", "plans"], name: "p.md" }, "planted", 0o644))
    expect(reason).toBe(`${path.join(base, "ws", ".crystal", "plans")} is a symbolic link`)
    expect(entries(elsewhere)).toEqual([])
  })

  it("refuses a FIFO or a folder where the file goes, without opening it", async () => {
    const base = await tempDir("crystal-cw-")
    fs.mkdirSync(path.join(base, "plans"))
    makeFifo(path.join(base, "plans", "fifo.md"))
    fs.mkdirSync(path.join(base, "plans", "dir.md"))
    // A FIFO opened for writing would block this test forever: the refusal comes first.
    expect(refusal(writeConfined({ root: base, folders: ["plans"], name: "fifo.md" }, "x", 0o644))).toMatch(/fifo\.md is a FIFO/)
    expect(refusal(writeConfined({ root: base, folders: ["plans"], name: "dir.md" }, "x", 0o644))).toMatch(/dir\.md is /)
    expect(entries(path.join(base, "plans"))).toEqual(["dir.md", "fifo.md"])
  })

  it("refuses a file where a folder goes, and folder names that are not plain names", async () => {
    const base = await tempDir("crystal-cw-")
    fs.writeFileSync(path.join(base, "plans"), "a file\n")
    expect(refusal(writeConfined({ root: base, folders: ["plans"], name: "p.md" }, "x", 0o644))).toBe(`${path.join(base, "plans")} is not a folder`)
    for (const folders of [[".."], ["."], [""], ["a/b"]]) {
      expect(refusal(writeConfined({ root: base, folders, name: "p.md" }, "x", 0o644))).toMatch(/is not a plain folder path$/)
    }
  })
})
