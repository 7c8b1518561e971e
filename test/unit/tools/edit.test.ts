import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { KeyedSemaphore } from "../../../src/files/keyed-semaphore.ts"
import { replaceFile } from "../../../src/tools/edit-files.ts"
import { lazyTool, type Tool } from "../../../src/tools/tool.ts"
import { editSpec } from "../../../src/tools/write-specs.ts"
import { cleanupFixtures, makeFixture, run, runError } from "./support.ts"

const editTool: Tool = lazyTool(editSpec, () => import("../../../src/tools/edit.ts").then((module) => module.makeEditFile(new KeyedSemaphore())))

afterEach(cleanupFixtures)

/** Files under `dir` that look like temp files of an atomic write. */
const leftovers = async (dir: string): Promise<Array<string>> =>
  (await fs.readdir(dir, { recursive: true })).filter((entry) => entry.endsWith(".tmp") || entry.includes(".crystal-"))
const modeOf = async (file: string): Promise<number> => (await fs.stat(file)).mode & 0o7777
const bytesOf = async (file: string): Promise<Buffer> => fs.readFile(file)

const SOURCE = ["import x from 'x'", "", "function add(a, b) {", "  return a + b", "}", "", "export default add", ""].join("\n")

describe("edit", () => {
  it("replaces the one occurrence and shows the changed lines with context", async () => {
    const f = await makeFixture({ "src/a.js": SOURCE })
    const text = await run(editTool, { path: "src/a.js", old_string: "  return a + b", new_string: "  const sum = a + b\n  return sum" }, f.context)
    expect(text).toBe(
      [
        "edited src/a.js: replaced 1 occurrence (lines 4–5):",
        "2\t",
        "3\tfunction add(a, b) {",
        "4\t  const sum = a + b",
        "5\t  return sum",
        "6\t}",
        "7\t"
      ].join("\n")
    )
    expect(await fs.readFile(path.join(f.workspace, "src/a.js"), "utf8")).toBe(SOURCE.replace("  return a + b", "  const sum = a + b\n  return sum"))
    expect(await leftovers(f.base)).toEqual([])
  })

  it("refuses a file over the limit, naming both sizes so they differ (a byte over 32 MiB read '32 MiB; … up to 32 MiB')", async () => {
    const f = await makeFixture({ "big.txt": "" })
    await fs.truncate(path.join(f.workspace, "big.txt"), 32 * 1024 * 1024 + 1)
    expect(await runError(editTool, { path: "big.txt", old_string: "a", new_string: "b" }, f.context)).toBe(
      "big.txt is 33554433 bytes; edit changes files up to 33554432 bytes."
    )
  })

  it("inserts new_string literally ($& and $1 are not patterns) and reports removals", async () => {
    const f = await makeFixture({ "a.txt": "one\ntwo\nthree\n" })
    await run(editTool, { path: "a.txt", old_string: "two", new_string: "$&-$1-$$" }, f.context)
    expect(await fs.readFile(path.join(f.workspace, "a.txt"), "utf8")).toBe("one\n$&-$1-$$\nthree\n")
    expect(await run(editTool, { path: "a.txt", old_string: "$&-$1-$$\n", new_string: "" }, f.context)).toBe(
      "edited a.txt: removed 1 occurrence (at line 2):\n1\tone\n2\tthree"
    )
    expect(await fs.readFile(path.join(f.workspace, "a.txt"), "utf8")).toBe("one\nthree\n")
  })

  it("replaces every occurrence with replace_all and lists where", async () => {
    const f = await makeFixture({ "a.txt": "let v = 1\nuse(v)\nlet w = 2\nlet v2 = v\n" })
    const text = await run(editTool, { path: "a.txt", old_string: "let", new_string: "const", replace_all: true }, f.context)
    expect(text.split("\n")[0]).toBe("edited a.txt: replaced 3 occurrences (lines 1, 3–4):")
    expect(await fs.readFile(path.join(f.workspace, "a.txt"), "utf8")).toBe("const v = 1\nuse(v)\nconst w = 2\nconst v2 = v\n")
  })

  it("refuses several matches without replace_all, saying how many and where", async () => {
    const f = await makeFixture({ "a.txt": "x = 1\ny = 2\nx = 1\nz\nx = 1\n" })
    expect(await runError(editTool, { path: "a.txt", old_string: "x = 1", new_string: "x = 3" }, f.context)).toBe(
      "old_string matches 3 times in a.txt (lines 1, 3, 5); it must match exactly once. Include more surrounding lines " +
        "to single out one, or set replace_all to replace all 3."
    )
    expect(await fs.readFile(path.join(f.workspace, "a.txt"), "utf8")).toBe("x = 1\ny = 2\nx = 1\nz\nx = 1\n")
  })

  it("shows the closest text when indentation differs (tabs in the file, spaces in old_string)", async () => {
    const body = ["package main", "", "func main() {", "\tif ok {", "\t\tfmt.Println(\"hi\")", "\t}", "}", ""].join("\n")
    const f = await makeFixture({ "main.go": body })
    const message = await runError(
      editTool,
      { path: "main.go", old_string: '    if ok {\n        fmt.Println("hi")\n    }', new_string: "\tprintHi()" },
      f.context
    )
    expect(message).toBe(
      [
        "old_string not found in main.go. Closest text, lines 4–6 (95% similar; it differs only in indentation: the file indents with tabs, old_string with spaces):",
        "4\t\tif ok {",
        '5\t\t\tfmt.Println("hi")',
        "6\t\t}",
        "Copy old_string exactly from the file, whitespace, indentation (tabs or spaces) and line breaks included, without " +
          "read's line-number prefixes. If the file may have changed since you read it, read it again."
      ].join("\n")
    )
    expect(await fs.readFile(path.join(f.workspace, "main.go"), "utf8")).toBe(body)
  })

  it("points at the lines that differ when the file changed since it was read", async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `const value${i} = compute(${i}, "label ${i}")`)
    const f = await makeFixture({ "big.ts": lines.join("\n") + "\n" })
    const stale = [lines[20], lines[21]?.replace("compute", "calculate"), lines[22]].join("\n")
    const message = await runError(editTool, { path: "big.ts", old_string: stale, new_string: "// gone" }, f.context)
    expect(message).toMatch(/^old_string not found in big\.ts\. Closest text, lines 21–23 \(\d+% similar; differs at line 22\):\n/)
    expect(message).toContain(`21\t${lines[20]}\n22\t${lines[21]}\n23\t${lines[22]}\n`)
    expect(message).toContain("read it again")
  })

  it("finds a near miss in a large file too (anchored search)", async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `row ${i}: ${"abcdefghij".repeat(3)} ${i * 7}`)
    const f = await makeFixture({ "huge.txt": lines.join("\n") + "\n" })
    const wanted = Array.from({ length: 20 }, (_, i) => lines[25_000 + i]).join("\n").replace("row 25010:", "row 25010 :")
    const started = Date.now()
    const message = await runError(editTool, { path: "huge.txt", old_string: wanted, new_string: "x" }, f.context)
    expect(Date.now() - started).toBeLessThan(5000)
    expect(message).toMatch(/Closest text, lines 25001–25020 \(\d+% similar; it differs only in spacing within lines\)/)
  })

  it("says when nothing is similar", async () => {
    const f = await makeFixture({ "a.txt": "alpha\nbeta\n" })
    expect(await runError(editTool, { path: "a.txt", old_string: "zzzz qqqq", new_string: "x" }, f.context)).toMatch(
      /^old_string not found in a\.txt, and no part of the file is similar to it\. Copy old_string exactly/
    )
  })

  it("recognises read's line-number prefixes and escaped newlines in old_string", async () => {
    const f = await makeFixture({ "a.txt": "one\ntwo\nthree\n" })
    expect(await runError(editTool, { path: "a.txt", old_string: "2\ttwo\n3\tthree", new_string: "x" }, f.context)).toMatch(
      /^old_string not found in a\.txt: it starts its lines with the line-number prefixes \("12<tab>"\) that read shows, .* Without them it matches at line 2; /
    )
    expect(await runError(editTool, { path: "a.txt", old_string: "two\\nthree", new_string: "x" }, f.context)).toMatch(
      /^old_string not found in a\.txt: it contains backslash escapes .* unescaped, it matches at line 2\./
    )
  })

  it("matches LF text in a CRLF file and writes the replacement with CRLF", async () => {
    const f = await makeFixture({ "dos.txt": "a\r\nb\r\nc\r\n" })
    const text = await run(editTool, { path: "dos.txt", old_string: "a\nb\n", new_string: "A\nB1\nB2\n" }, f.context)
    expect(text).toBe("edited dos.txt: replaced 1 occurrence (lines 1–3):\n1\tA\n2\tB1\n3\tB2\n4\tc")
    expect(await fs.readFile(path.join(f.workspace, "dos.txt"), "utf8")).toBe("A\r\nB1\r\nB2\r\nc\r\n")
    // A one-line old_string: new lines still get the file's CRLF.
    await run(editTool, { path: "dos.txt", old_string: "c", new_string: "c\nd" }, f.context)
    expect(await fs.readFile(path.join(f.workspace, "dos.txt"), "utf8")).toBe("A\r\nB1\r\nB2\r\nc\r\nd\r\n")
  })

  it("matches across mixed line endings, keeping the endings of the replaced text", async () => {
    // The replaced text has one CRLF and one LF: the file's prevailing CRLF wins.
    const f = await makeFixture({ "mixed.txt": "a\r\nb\nc\r\nd\r\ne\nf" })
    await run(editTool, { path: "mixed.txt", old_string: "a\nb\nc", new_string: "x\ny" }, f.context)
    expect(await fs.readFile(path.join(f.workspace, "mixed.txt"), "utf8")).toBe("x\r\ny\r\nd\r\ne\nf")
    // The replaced text is all LF.
    await run(editTool, { path: "mixed.txt", old_string: "e\r\nf", new_string: "1\r\n2\r\n3" }, f.context)
    expect(await fs.readFile(path.join(f.workspace, "mixed.txt"), "utf8")).toBe("x\r\ny\r\nd\r\n1\n2\n3")
  })

  it("says when old_string ends with a line break the file's last line lacks", async () => {
    const f = await makeFixture({ "a.txt": "one\ntwo" })
    expect(await runError(editTool, { path: "a.txt", old_string: "one\ntwo\n", new_string: "x" }, f.context)).toMatch(
      /^old_string not found in a\.txt\. Closest text, lines 1–2 \(\d+% similar; the file's last line has no line break, old_string ends with one\):\n1\tone\n2\ttwo\n/
    )
  })

  it("keeps the result short when replace_all changes many lines", async () => {
    const f = await makeFixture({ "a.txt": Array.from({ length: 100 }, (_, i) => `item ${i + 1}`).join("\n") + "\n" })
    const text = await run(editTool, { path: "a.txt", old_string: "item", new_string: "entry", replace_all: true }, f.context)
    const lines = text.split("\n")
    expect(lines[0]).toBe("edited a.txt: replaced 100 occurrences (lines 1–100):")
    expect(lines.length).toBeLessThanOrEqual(22)
    expect(lines[lines.length - 1]).toBe("…")
  })

  it("refuses an edit that would only change line endings", async () => {
    const f = await makeFixture({ "dos.txt": "a\r\nb\r\n" })
    expect(await runError(editTool, { path: "dos.txt", old_string: "a\nb", new_string: "a\r\nb" }, f.context)).toBe(
      "The edit would leave dos.txt unchanged: old_string and new_string differ only in line endings, and edit keeps the file's line endings."
    )
  })

  it("keeps LF in an LF file even when the model sends CRLF", async () => {
    const f = await makeFixture({ "unix.txt": "a\nb\n" })
    await run(editTool, { path: "unix.txt", old_string: "a\r\nb", new_string: "x\r\ny" }, f.context)
    expect(await fs.readFile(path.join(f.workspace, "unix.txt"), "utf8")).toBe("x\ny\n")
  })

  it("keeps a UTF-8 byte order mark", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    const f = await makeFixture({ "bom.txt": Buffer.concat([bom, Buffer.from("héllo\nwörld\n")]) })
    await run(editTool, { path: "bom.txt", old_string: "wörld", new_string: "welt" }, f.context)
    expect(await bytesOf(path.join(f.workspace, "bom.txt"))).toEqual(Buffer.concat([bom, Buffer.from("héllo\nwelt\n")]))
  })

  it("keeps UTF-16 (little and big endian) with its byte order mark", async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo\r\nwörld\r\n", "utf16le")])
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("one\ntwo\n", "utf16le").swap16()])
    const f = await makeFixture({ "le.txt": le, "be.txt": be })
    expect(await run(editTool, { path: "le.txt", old_string: "wörld\n", new_string: "wörld\n€!\n" }, f.context)).toContain("(lines 2–3)")
    expect(await bytesOf(path.join(f.workspace, "le.txt"))).toEqual(
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo\r\nwörld\r\n€!\r\n", "utf16le")])
    )
    await run(editTool, { path: "be.txt", old_string: "two", new_string: "zwei" }, f.context)
    expect(await bytesOf(path.join(f.workspace, "be.txt"))).toEqual(
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("one\nzwei\n", "utf16le").swap16()])
    )
  })

  it("leaves bytes that are not valid UTF-8 untouched", async () => {
    const latin1 = Buffer.from("caf\xe9 = 1\nna\xefve = 2\n", "latin1")
    const f = await makeFixture({ "legacy.txt": latin1 })
    await run(editTool, { path: "legacy.txt", old_string: "= 2", new_string: "= «2»" }, f.context)
    expect(await bytesOf(path.join(f.workspace, "legacy.txt"))).toEqual(
      Buffer.concat([Buffer.from("caf\xe9 = 1\nna\xefve ", "latin1"), Buffer.from("= «2»\n", "utf8")])
    )
  })

  it("keeps the file's mode and replaces it atomically (a new inode, no temp file)", async () => {
    const f = await makeFixture({ "run.sh": "#!/bin/sh\necho hi\n", "private.txt": "secret\n" })
    const script = path.join(f.workspace, "run.sh")
    const secret = path.join(f.workspace, "private.txt")
    await fs.chmod(script, 0o755)
    await fs.chmod(secret, 0o600)
    const before = (await fs.stat(script)).ino
    await run(editTool, { path: "run.sh", old_string: "hi", new_string: "bye" }, f.context)
    await run(editTool, { path: "private.txt", old_string: "secret", new_string: "hidden" }, f.context)
    expect(await modeOf(script)).toBe(0o755)
    expect(await modeOf(secret)).toBe(0o600)
    expect((await fs.stat(script)).ino).not.toBe(before)
    expect(await fs.readFile(script, "utf8")).toBe("#!/bin/sh\necho bye\n")
    expect(await leftovers(f.base)).toEqual([])
  })

  it("applies concurrent edits of one file one after the other", async () => {
    const f = await makeFixture({ "a.txt": "a\nb\nc\nd\n" })
    await Promise.all(
      ["a", "b", "c", "d"].map((letter) => run(editTool, { path: "a.txt", old_string: `${letter}\n`, new_string: `${letter.toUpperCase()}\n` }, f.context))
    )
    expect(await fs.readFile(path.join(f.workspace, "a.txt"), "utf8")).toBe("A\nB\nC\nD\n")
  })

  it("edits the target of a symbolic link inside the workspace and keeps the link", async () => {
    const f = await makeFixture({ "real.txt": "old\n" })
    await fs.symlink("real.txt", path.join(f.workspace, "alias.txt"))
    expect(await run(editTool, { path: "alias.txt", old_string: "old", new_string: "new" }, f.context)).toMatch(/^edited real\.txt:/)
    expect((await fs.lstat(path.join(f.workspace, "alias.txt"))).isSymbolicLink()).toBe(true)
    expect(await fs.readFile(path.join(f.workspace, "real.txt"), "utf8")).toBe("new\n")
  })

  it("refuses empty and unchanged edits before touching anything", async () => {
    const f = await makeFixture({ "a.txt": "a\n", "empty.txt": "" })
    expect(await runError(editTool, { path: "a.txt", old_string: "", new_string: "x" }, f.context)).toBe(
      "old_string is empty. To create a file or replace all of its content, use write."
    )
    expect(await runError(editTool, { path: "a.txt", old_string: "a", new_string: "a" }, f.context)).toBe(
      "old_string and new_string are identical; there is nothing to change."
    )
    expect(await runError(editTool, { path: "empty.txt", old_string: "a", new_string: "b" }, f.context)).toBe(
      "empty.txt is empty, so old_string cannot match; use write to give it content."
    )
  })

  it("refuses binary files, directories and missing files with clear messages", async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])
    const f = await makeFixture({ "logo.png": png, "data.bin": Uint8Array.from([65, 0, 66]), "src/": "", "src/main.ts": "x\n" })
    expect(await runError(editTool, { path: "logo.png", old_string: "PNG", new_string: "GIF" }, f.context)).toBe(
      "logo.png is a PNG image, not a text file; edit changes text files only."
    )
    expect(await runError(editTool, { path: "data.bin", old_string: "A", new_string: "B" }, f.context)).toBe(
      "data.bin is a binary file (it contains NUL bytes), not a text file; edit changes text files only."
    )
    expect(await runError(editTool, { path: "src", old_string: "x", new_string: "y" }, f.context)).toBe("src is a directory; edit changes a file.")
    expect(await runError(editTool, { path: "src/", old_string: "x", new_string: "y" }, f.context)).toBe(
      "'src/' names a directory; edit needs a file path."
    )
    expect(await runError(editTool, { path: "src/mian.ts", old_string: "x", new_string: "y" }, f.context)).toBe(
      "File not found: src/mian.ts. Did you mean src/main.ts? To create a new file, use write."
    )
    expect(await bytesOf(path.join(f.workspace, "logo.png"))).toEqual(Buffer.from(png))
    expect(await leftovers(f.base)).toEqual([])
  })

  it("refuses paths outside the workspace: absolute, through `..`, and through a symbolic link", async () => {
    const f = await makeFixture({ "inside.txt": "inside\n" }, { "secret.txt": "secret = 1\n" })
    const secret = path.join(f.outside, "secret.txt")
    const original = await bytesOf(secret)
    const originalStat = await fs.stat(secret)
    await fs.symlink(secret, path.join(f.workspace, "link.txt"))
    await fs.symlink(f.outside, path.join(f.workspace, "linkdir"))
    const args = { old_string: "secret = 1", new_string: "secret = 2" }
    expect(await runError(editTool, { path: secret, ...args }, f.context)).toMatch(/^'.*secret\.txt' is outside the workspace .*; write refused$/)
    expect(await runError(editTool, { path: "../outside/secret.txt", ...args }, f.context)).toMatch(/write refused$/)
    expect(await runError(editTool, { path: "link.txt", ...args }, f.context)).toMatch(
      /^'link\.txt' is outside the workspace .* \(through a symbolic link it resolves to .*secret\.txt\); write refused$/
    )
    expect(await runError(editTool, { path: "linkdir/secret.txt", ...args }, f.context)).toMatch(/write refused$/)
    expect(await bytesOf(secret)).toEqual(original)
    expect((await fs.stat(secret)).mtimeMs).toBe(originalStat.mtimeMs)
    expect((await fs.lstat(path.join(f.workspace, "link.txt"))).isSymbolicLink()).toBe(true)
    expect(await leftovers(f.base)).toEqual([])
  })

  it("never leaves a temp file when the replacement is abandoned", async () => {
    const f = await makeFixture({ "a.txt": "a\n" })
    const file = path.join(f.workspace, "a.txt")
    const keep = await fs.stat(file)
    await expect(replaceFile(file, Buffer.from("b\n"), { keep, seen: { ino: keep.ino, size: keep.size + 1, mtimeMs: keep.mtimeMs }, display: "a.txt" })).rejects.toThrow(
      "a.txt changed on disk while it was being edited; nothing was written. Read it again."
    )
    expect(await fs.readFile(file, "utf8")).toBe("a\n")
    expect(await leftovers(f.base)).toEqual([])
  })

  it("is classified as a medium-risk workspace write, high outside", async () => {
    const f = await makeFixture({ "a.txt": "a\n" })
    const inside = await Effect.runPromise(editTool.classify({ path: "a.txt", old_string: "a", new_string: "b" }, f.context))
    expect(inside).toMatchObject({ risk: "medium", authority: "write", scope: "workspace", summary: "edit a.txt" })
    const outside = await Effect.runPromise(editTool.classify({ path: "../outside/x", old_string: "a", new_string: "b" }, f.context))
    expect(outside).toMatchObject({ risk: "high", authority: "write", scope: "outside" })
  })
})
