import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { sniffContent } from "../../../src/tools/read.ts"
import { READ_MAX_BYTES, READ_MAX_LINES } from "../../../src/tools/specs.ts"
import { builtinTool, cleanupFixtures, makeFixture, run, runError } from "./support.ts"

const readTool = builtinTool("read")

afterEach(cleanupFixtures)

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
const lines = (count: number, make: (n: number) => string = (n) => `line ${n}`): string =>
  Array.from({ length: count }, (_, i) => make(i + 1)).join("\n") + "\n"

describe("read", () => {
  it("prints numbered lines", async () => {
    const f = await makeFixture({ "src/a.txt": "alpha\nbeta\n\ngamma" })
    expect(await run(readTool, { path: "src/a.txt" }, f.context)).toBe("1\talpha\n2\tbeta\n3\t\n4\tgamma")
  })

  it("reads a range with offset and limit and says how to continue", async () => {
    const f = await makeFixture({ "a.txt": lines(10) })
    expect(await run(readTool, { path: "a.txt", offset: 4, limit: 2 }, f.context)).toBe(
      "4\tline 4\n5\tline 5\n\n[Lines 4-5 of 10. Continue with offset=6.]"
    )
    expect(await run(readTool, { path: "a.txt", offset: 9 }, f.context)).toBe("9\tline 9\n10\tline 10")
  })

  it("caps at 2000 lines and counts the rest of a large file", async () => {
    const f = await makeFixture({ "big.txt": lines(200_000, (n) => `${n}`) })
    const text = await run(readTool, { path: "big.txt" }, f.context)
    const body = text.split("\n\n")[0]?.split("\n") ?? []
    expect(body).toHaveLength(READ_MAX_LINES)
    expect(body[1999]).toBe("2000\t2000")
    expect(text).toContain(`[Lines 1-2000 of 200000 (${READ_MAX_LINES}-line limit). Continue with offset=2001.]`)
  })

  it("caps the output bytes", async () => {
    const f = await makeFixture({ "wide.txt": lines(1000, (n) => `${n} ${"x".repeat(200)}`) })
    const text = await run(readTool, { path: "wide.txt" }, f.context)
    expect(Buffer.byteLength(text)).toBeLessThan(READ_MAX_BYTES + 200)
    const shown = (text.split("\n\n")[0] ?? "").split("\n").length
    expect(shown).toBeGreaterThan(200)
    expect(shown).toBeLessThan(260)
    expect(text).toContain(`of 1000 (50 KiB output limit). Continue with offset=${shown + 1}.]`)
  })

  it("cuts very long lines and says which", async () => {
    const f = await makeFixture({ "min.js": `short\n${"y".repeat(5000)}\nend\n` })
    const text = await run(readTool, { path: "min.js" }, f.context)
    expect(text).toContain(`2\t${"y".repeat(2000)}… [+3000 chars]\n3\tend`)
    expect(text).toContain("[Lines longer than 2000 characters were cut: 2. Use grep to search them.]")
  })

  it("shows CRLF files without carriage returns and says so", async () => {
    const f = await makeFixture({ "dos.txt": "one\r\ntwo\r\n" })
    expect(await run(readTool, { path: "dos.txt" }, f.context)).toBe("1\tone\n2\ttwo\n\n[The file has CRLF line endings; they are not shown.]")
  })

  it("decodes UTF-16 with a byte order mark", async () => {
    const bom = Buffer.from([0xff, 0xfe])
    const f = await makeFixture({ "wide16.txt": Buffer.concat([bom, Buffer.from("héllo\nwörld\n", "utf16le")]) })
    expect(await run(readTool, { path: "wide16.txt" }, f.context)).toBe("1\théllo\n2\twörld")
  })

  it("reports an empty file and refuses an offset past the end", async () => {
    const f = await makeFixture({ "empty.txt": "", "three.txt": "a\nb\nc\n" })
    expect(await run(readTool, { path: "empty.txt" }, f.context)).toBe("(empty file)")
    expect(await runError(readTool, { path: "three.txt", offset: 7 }, f.context)).toBe("offset 7 is past the end of three.txt (3 lines).")
  })

  it("refuses binary files and names known kinds", async () => {
    const f = await makeFixture({ "logo.png": PNG, "data.bin": Uint8Array.from([65, 66, 0, 67, 10]) })
    expect(await runError(readTool, { path: "logo.png" }, f.context)).toBe("logo.png is a PNG image, not a text file; read shows text files only.")
    expect(await runError(readTool, { path: "data.bin" }, f.context)).toContain("data.bin is a binary file (it contains NUL bytes)")
  })

  it("sniffs content kinds", () => {
    expect(sniffContent(PNG)).toEqual({ binary: "a PNG image" })
    expect(sniffContent(Uint8Array.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31]))).toEqual({ binary: "a PDF document" })
    expect(sniffContent(Uint8Array.from([0x1f, 0x8b, 8, 0]))).toEqual({ binary: "a gzip archive" })
    expect(sniffContent(Buffer.from("plain text\twith tab\n"))).toEqual({ text: "utf-8" })
    expect(sniffContent(Buffer.from([1, 2, 3, 4, 5, 65, 66, 67]))).toEqual({ binary: "a binary file (it is mostly control characters)" })
  })

  it("points a directory to list and tree", async () => {
    const f = await makeFixture({ "src/a.ts": "" })
    expect(await runError(readTool, { path: "src" }, f.context)).toBe("src is a directory; use list or tree to see its entries.")
  })

  it("suggests similarly named files when a file is missing", async () => {
    const f = await makeFixture({ "docs/README.md": "", "docs/config.json": "", "docs/other.txt": "" })
    expect(await runError(readTool, { path: "docs/READMEE.md" }, f.context)).toBe("File not found: docs/READMEE.md. Did you mean docs/README.md?")
    expect(await runError(readTool, { path: "docs/config.yaml" }, f.context)).toBe("File not found: docs/config.yaml. Did you mean docs/config.json?")
    expect(await runError(readTool, { path: "docs/zzz.md" }, f.context)).toBe("File not found: docs/zzz.md.")
    expect(await runError(readTool, { path: "nope/a.md" }, f.context)).toBe("File not found: nope/a.md (directory nope does not exist).")
  })

  it("refuses paths outside the workspace, also through symbolic links", async () => {
    const f = await makeFixture({ "inside.txt": "ok\n" }, { "secret.txt": "secret\n", "dir/deep.txt": "deep\n" })
    await fs.symlink(path.join(f.outside, "secret.txt"), path.join(f.workspace, "link.txt"))
    await fs.symlink(path.join(f.outside, "dir"), path.join(f.workspace, "linkdir"))
    await fs.symlink(path.join(f.workspace, "inside.txt"), path.join(f.workspace, "alias.txt"))
    expect(await runError(readTool, { path: "link.txt" }, f.context)).toMatch(/outside the workspace .* \(through a symbolic link it resolves to .*secret\.txt\); read refused/)
    expect(await runError(readTool, { path: "linkdir/deep.txt" }, f.context)).toMatch(/read refused/)
    expect(await runError(readTool, { path: path.join(f.outside, "secret.txt") }, f.context)).toMatch(/read refused/)
    expect(await runError(readTool, { path: "../outside/secret.txt" }, f.context)).toMatch(/read refused/)
    expect(await run(readTool, { path: "alias.txt" }, f.context)).toBe("1\tok")
  })

  it("validates its arguments", async () => {
    const f = await makeFixture({ "a.txt": "a\n" })
    expect(await runError(readTool, { path: "a.txt", offset: 0 }, f.context)).toMatch(/bad arguments/)
    expect(await runError(readTool, { path: "a.txt", limit: 1.5 }, f.context)).toMatch(/bad arguments/)
  })
})
