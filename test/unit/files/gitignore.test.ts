import { describe, expect, it } from "vitest"
import { GlobSyntaxError } from "../../../src/files/walk/glob-parser.ts"
import { compileGlob, GlobFilter, IgnoreMatcher, parseIgnoreLine, rerootIgnoreText } from "../../../src/files/walk/gitignore.ts"

describe("compileGlob (globset semantics)", () => {
  const cases: ReadonlyArray<readonly [string, string, boolean]> = [
    ["*.ts", "a.ts", true],
    ["*.ts", "dir/a.ts", false],
    ["*.ts", ".hidden.ts", true],
    ["a?c", "abc", true],
    ["a?c", "a/c", false],
    ["**", "any/thing/at/all", true],
    ["**/x", "x", true],
    ["**/x", "a/b/x", true],
    ["a/**", "a/b/c", true],
    ["a/**", "a", false],
    ["a/**/b", "a/b", true],
    ["a/**/b", "a/x/y/b", true],
    ["a**b", "aXXb", true],
    ["a**b", "a/b", false],
    ["*.{ts,tsx}", "x.tsx", true],
    ["*.{ts,tsx}", "x.js", false],
    ["src/{a,b/**}/*.ts", "src/b/c/d.ts", true],
    ["[a-c].md", "b.md", true],
    ["[a-c].md", "d.md", false],
    ["[!a-c].md", "d.md", true],
    ["[]x].md", "].md", true],
    ["\\*.md", "*.md", true],
    ["\\*.md", "a.md", false],
    ["[abc", "[abc", true],
    ["a,b", "a,b", true],
    ["é*.txt", "été.txt", true]
  ]
  it.each(cases)("%s vs %s → %s", (glob, candidate, expected) => {
    expect(compileGlob(glob).test(candidate)).toBe(expected)
  })

  it("rejects invalid globs", () => {
    expect(() => compileGlob("{a,b")).toThrow(GlobSyntaxError)
    expect(() => compileGlob("a}")).toThrow(GlobSyntaxError)
    expect(() => compileGlob("x\\")).toThrow(GlobSyntaxError)
    expect(() => compileGlob("[z-a]")).toThrow(GlobSyntaxError)
  })
})

describe("gitignore lines", () => {
  it("parses comments, escapes, negation, directory-only and anchoring", () => {
    expect(parseIgnoreLine("# comment")).toBeUndefined()
    expect(parseIgnoreLine("   ")).toBeUndefined()
    expect(parseIgnoreLine("\\#file")?.glob).toBe("**/#file")
    expect(parseIgnoreLine("\\!file")).toMatchObject({ glob: "**/!file", whitelist: false })
    expect(parseIgnoreLine("!keep.log")).toMatchObject({ glob: "**/keep.log", whitelist: true })
    expect(parseIgnoreLine("build/")).toMatchObject({ glob: "**/build", onlyDir: true })
    expect(parseIgnoreLine("/top.txt")).toMatchObject({ glob: "top.txt" })
    expect(parseIgnoreLine("docs/gen")).toMatchObject({ glob: "docs/gen" })
    expect(parseIgnoreLine("out/**")).toMatchObject({ glob: "out/**/*" })
    expect(parseIgnoreLine("trailing   ")).toMatchObject({ glob: "**/trailing" })
    expect(parseIgnoreLine("space\\ ")).toMatchObject({ glob: "**/space\\ " })
    expect(parseIgnoreLine("crlf\r")).toMatchObject({ glob: "**/crlf" })
  })

  it("lets the last matching line win and honours directory-only rules", () => {
    const m = IgnoreMatcher.parse("\uFEFF*.log\n!keep.log\nbuild/\n/anchored\n")
    expect(m.match("x.log", false)).toBe("ignore")
    expect(m.match("a/b/x.log", false)).toBe("ignore")
    expect(m.match("a/keep.log", false)).toBe("whitelist")
    expect(m.match("build", true)).toBe("ignore")
    expect(m.match("build", false)).toBeUndefined()
    expect(m.match("sub/build", true)).toBe("ignore")
    expect(m.match("anchored", false)).toBe("ignore")
    expect(m.match("sub/anchored", false)).toBeUndefined()
    expect(m.match("src/main.ts", false)).toBeUndefined()
  })
})

describe("GlobFilter (rg --glob)", () => {
  it("selects matching files, skips other files, leaves directories to the ignore rules", () => {
    const only = GlobFilter.make("*.ts")
    expect(only.match("src/a.ts", false)).toBe("whitelist")
    expect(only.match("src/a.js", false)).toBe("ignore")
    expect(only.match("src", true)).toBeUndefined()
    const anchored = GlobFilter.make("src/**/*.ts")
    expect(anchored.match("src/x/a.ts", false)).toBe("whitelist")
    expect(anchored.match("lib/src/a.ts", false)).toBe("ignore")
  })

  it("excludes files and directories with a leading !", () => {
    const not = GlobFilter.make("!vendor")
    expect(not.match("vendor", true)).toBe("ignore")
    expect(not.match("src/vendor", true)).toBe("ignore")
    expect(not.match("src/a.ts", false)).toBeUndefined()
  })
})

describe("rerootIgnoreText", () => {
  it("rewrites a sub-directory's rules so they mean the same from the root", () => {
    const text = "# c\n*.log\n!keep.log\n/anchored\ndocs/gen/\n**/deep\n\\#hash\nout/**\n"
    expect(rerootIgnoreText(text, "a/b").split("\n")).toEqual([
      "/a/b/**/*.log",
      "!/a/b/**/keep.log",
      "/a/b/anchored",
      "/a/b/docs/gen/",
      "/a/b/**/deep",
      "/a/b/**/#hash",
      "/a/b/out/**"
    ])
    expect(rerootIgnoreText("x\n/y\n", "")).toBe("x\n/y")
    expect(rerootIgnoreText("x\n", "we*ird{dir}")).toBe("/we\\*ird\\{dir\\}/**/x")
  })

  it("matches the same paths after re-rooting", () => {
    const original = IgnoreMatcher.parse("*.log\n!keep.log\n/anchored\ndocs/gen/\n")
    const rerooted = IgnoreMatcher.parse(rerootIgnoreText("*.log\n!keep.log\n/anchored\ndocs/gen/\n", "a/b"))
    const probes: ReadonlyArray<readonly [string, boolean]> = [
      ["x.log", false],
      ["c/keep.log", false],
      ["anchored", false],
      ["c/anchored", false],
      ["docs/gen", true],
      ["docs/gen", false],
      ["c/docs/gen", true]
    ]
    for (const [probe, isDir] of probes) {
      expect(rerooted.match(`a/b/${probe}`, isDir)).toBe(original.match(probe, isDir))
    }
    expect(rerooted.match("x.log", false)).toBeUndefined()
  })
})
