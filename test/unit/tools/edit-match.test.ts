import { describe, expect, it } from "vitest"
import { countLines, decodeText, encodeText, fromModel, lineNumbers, linesAround, showLines, toModel } from "../../../src/tools/edit-files.ts"
import { disjoint, lineEndingOf, locate, nearMiss, unescaped, withoutLinePrefixes } from "../../../src/tools/edit-match.ts"
import { formatLineList } from "../../../src/tools/edit.ts"

describe("locate", () => {
  it("finds exact occurrences, overlapping ones included; replace_all takes them left to right without overlap", () => {
    const matches = locate("aaaa", "aa", "b")
    expect(matches.map((m) => m.start)).toEqual([0, 1, 2])
    expect(disjoint(matches).map((m) => [m.start, m.end])).toEqual([
      [0, 2],
      [2, 4]
    ])
    expect(locate("abc", "x\ny", "")).toEqual([])
  })

  it("matches across any line endings and gives each replacement the endings it replaces", () => {
    const text = "a\r\nb\r\nc\nd\ne\r\n"
    expect(locate(text, "a\nb", "1\n2")).toEqual([{ start: 0, end: 4, replacement: "1\r\n2" }])
    expect(locate(text, "c\r\nd", "1\r\n2")).toEqual([{ start: 6, end: 9, replacement: "1\n2" }])
    // A one-line old_string takes the file's prevailing ending.
    expect(locate("x\r\ny\r\n", "y", "y\nz")[0]?.replacement).toBe("y\r\nz")
    expect(locate("x\ny\n", "y", "y\r\nz")[0]?.replacement).toBe("y\nz")
  })

  it("treats regular expression characters literally", () => {
    expect(locate("f(a.b)*[x]\n$y\n", "(a.b)*[x]\n$y", "z").map((m) => m.start)).toEqual([1])
    expect(locate("f(a.b)*[x]\r\n$y\n", "(a.b)*[x]\n$y", "z").map((m) => [m.start, m.end])).toEqual([[1, 14]])
  })

  it("names the prevailing line ending", () => {
    expect(lineEndingOf("a\r\nb\r\nc\n")).toBe("\r\n")
    expect(lineEndingOf("a\nb\r\nc\n")).toBe("\n")
    expect(lineEndingOf("abc")).toBe("\n")
    expect(lineEndingOf("a\r\nb\n", "\r\n")).toBe("\r\n")
  })
})

describe("nearMiss", () => {
  const file = ["function f() {", "  if (x) {", "    return 1", "  }", "}", ""].join("\n")

  it("finds the region and says when only whitespace differs", () => {
    const near = nearMiss(file, "if (x) {\n  return 1\n}")
    expect(near).toMatchObject({ from: 2, to: 4, differing: [2, 3, 4], whitespace: "indentation", pastEnd: false })
    expect(near?.score).toBeCloseTo(0.95)
    expect(nearMiss("a  =  1\nb = 2\n", "a = 1   \nb = 2")?.whitespace).toBe("spacing within lines; trailing whitespace")
    expect(nearMiss("\tx\n", "  x")?.whitespace).toBe("indentation: the file indents with tabs, old_string with spaces")
    expect(nearMiss("  x\n", "\tx")?.whitespace).toBe("indentation: the file indents with spaces, old_string with tabs")
  })

  it("lists the lines that differ", () => {
    const near = nearMiss(file, "  if (x) {\n    return 2\n  }")
    expect([near?.from, near?.to, near?.differing, near?.whitespace]).toEqual([2, 4, [3], undefined])
  })

  it("scores a partial first or last line by containment", () => {
    const near = nearMiss("const total = computeTotal(items, taxRate)\nnext()\n", "computeTotals(items, taxRate)")
    expect([near?.from, near?.to]).toEqual([1, 1])
  })

  it("gives nothing when nothing is similar", () => {
    expect(nearMiss(file, "completely unrelated words here")).toBeUndefined()
    expect(nearMiss("", "x")).toBeUndefined()
  })
})

describe("recognised mistakes", () => {
  it("strips read's line-number prefixes only when every non-empty line has one", () => {
    expect(withoutLinePrefixes("12\tconst a = 1\n13\t\n14\t}")).toBe("const a = 1\n\n}")
    expect(withoutLinePrefixes("   7\tx")).toBe("x")
    expect(withoutLinePrefixes("12\tconst a = 1\nplain")).toBeUndefined()
  })

  it("unescapes literal backslash sequences", () => {
    expect(unescaped('a\\nb\\t\\"c\\"')).toBe('a\nb\t"c"')
    expect(unescaped("plain")).toBeUndefined()
  })
})

describe("file text helpers", () => {
  it("round-trips every encoding byte for byte", () => {
    const samples = [
      Buffer.from("plain\n"),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("bom ü\n")]),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("le ü\r\n", "utf16le")]),
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("be ü\n", "utf16le").swap16()]),
      Buffer.from("latin1 \xe9\xff\n", "latin1")
    ]
    for (const sample of samples) {
      const decoded = decodeText(sample)
      if ("refused" in decoded) throw new Error(decoded.refused)
      expect(Buffer.from(encodeText(decoded, decoded.text))).toEqual(sample)
    }
  })

  it("converts the model's strings for a file that is not valid UTF-8", () => {
    const decoded = decodeText(Buffer.from("caf\xe9\n", "latin1"))
    if ("refused" in decoded) throw new Error(decoded.refused)
    expect(decoded.bytes).toBe(true)
    expect(fromModel(decoded, "é")).toBe("\xc3\xa9")
    expect(toModel(decoded, "\xc3\xa9")).toBe("é")
  })

  it("refuses binary and malformed UTF-16", () => {
    expect(decodeText(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toEqual({ refused: "is a PNG image, not a text file" })
    expect(decodeText(Uint8Array.from([0xff, 0xfe, 0x41, 0x00, 0x42]))).toEqual({ refused: "is not valid UTF-16LE text" })
  })

  it("counts and numbers lines", () => {
    expect([countLines(""), countLines("a"), countLines("a\n"), countLines("a\nb")]).toEqual([0, 1, 1, 2])
    expect(lineNumbers("a\nb\nc", [0, 1, 2, 4])).toEqual([1, 1, 2, 3])
    expect(formatLineList([9, 1, 2, 3, 5, 5])).toBe("1–3, 5, 9")
    expect(formatLineList([1, 3, 5, 7], 2)).toBe("1, 3, …")
  })

  it("shows chosen lines numbered, with gaps marked and long ranges cut to head and tail", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `l${i + 1}`)
    expect(showLines(lines, linesAround([[3, 3]], 1))).toBe("2\tl2\n3\tl3\n4\tl4")
    expect(showLines(lines, linesAround([[10, 25]], 0, 2))).toBe("10\tl10\n11\tl11\n…\n24\tl24\n25\tl25")
    expect(showLines(lines, linesAround([[1, 1], [30, 30]], 1))).toBe("1\tl1\n2\tl2\n…\n29\tl29\n30\tl30")
    expect(showLines(lines, [1, 2, 3], 2)).toBe("1\tl1\n2\tl2\n…")
  })
})
