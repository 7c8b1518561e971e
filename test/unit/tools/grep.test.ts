import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { afterEach, describe, expect, it } from "vitest"
import { makeFifo, unblockFifoAfter, type FifoGuard } from "../../support/fifo.ts"
import { grepOutput, prepareGrep, runBuiltinGrep, searchFiles, type GrepToolOptions } from "../../../src/tools/grep.ts"
import { findRipgrep, grepWithRipgrep, ripgrepArgs } from "../../../src/tools/ripgrep.ts"
import { grepSpec } from "../../../src/tools/specs.ts"
import { defineTool, type Tool } from "../../../src/tools/tool.ts"
import { cleanupFixtures, makeFixture, run, runEffect, runError, type Fixture, type Tree } from "./support.ts"

const guards: Array<FifoGuard> = []
afterEach(async () => {
  for (const guard of guards.splice(0)) guard.stop()
  await cleanupFixtures()
})

const rg = await findRipgrep()

/** The grep tool with a chosen search: `ripgrep: null` = the built-in one, a path = that rg. */
const makeGrepTool = (options: GrepToolOptions): Tool => defineTool({ ...grepSpec, run: (args, context) => searchFiles(args, context, options) })

const implementations: ReadonlyArray<readonly [string, Tool | undefined]> = [
  ["built-in", makeGrepTool({ ripgrep: null })],
  [rg === undefined ? "rg (SKIPPED: rg is not on PATH)" : "rg", rg === undefined ? undefined : makeGrepTool({ ripgrep: rg })]
]

const project: Tree = {
  ".gitignore": "dist/\n*.log\n!keep.log\n",
  "src/app.ts": "import { foo } from './foo'\nconst value = foo()\nexport default value\n",
  "src/foo.ts": "export function foo() {\n  return 'FooBar'\n}\n",
  "src/notes.md": "foo in markdown\n",
  "src/deep/x.ts": "// foo deep\n",
  "dist/bundle.js": "foo()\n",
  "debug.log": "foo in a log\n",
  "keep.log": "foo kept\n",
  ".config/settings.json": '{ "foo": true }\n',
  ".git/config": "foo in git\n",
  "image.bin": Buffer.from("foo\0binary\n"),
  "ctx.txt": "one\ntwo foo\nthree\nfour\nfive\nsix\nseven foo\neight\nnine foo\nten\n"
}

describe.each(implementations)("grep (%s)", (_name, tool) => {
  const grep = tool ?? makeGrepTool({ ripgrep: null })
  const maybe = tool === undefined ? it.skip : it

  maybe("prints path:line:text sorted by path, skipping .git, ignored and binary files", async () => {
    const f = await makeFixture(project)
    expect(await run(grep, { pattern: "fo{2}" }, f.context)).toBe(
      [
        ".config/settings.json:1:{ \"foo\": true }",
        "ctx.txt:2:two foo",
        "ctx.txt:7:seven foo",
        "ctx.txt:9:nine foo",
        "keep.log:1:foo kept",
        "src/app.ts:1:import { foo } from './foo'",
        "src/app.ts:2:const value = foo()",
        "src/deep/x.ts:1:// foo deep",
        "src/foo.ts:1:export function foo() {",
        "src/notes.md:1:foo in markdown"
      ].join("\n")
    )
  })

  maybe("matches case-insensitively and with regex syntax", async () => {
    const f = await makeFixture(project)
    expect(await run(grep, { pattern: "foobar", ignoreCase: true }, f.context)).toBe("src/foo.ts:2:  return 'FooBar'")
    expect(await run(grep, { pattern: "foobar" }, f.context)).toBe("No matches for foobar in .; .git, ignored and binary files are skipped.")
    expect(await run(grep, { pattern: "^export (default|function)\\s+\\w+", path: "src" }, f.context)).toBe(
      ["src/app.ts:3:export default value", "src/foo.ts:1:export function foo() {"].join("\n")
    )
  })

  maybe("prints context lines and -- between groups that do not touch", async () => {
    const f = await makeFixture(project)
    expect(await run(grep, { pattern: "foo", path: "ctx.txt", context: 1 }, f.context)).toBe(
      ["ctx.txt-1-one", "ctx.txt:2:two foo", "ctx.txt-3-three", "--", "ctx.txt-6-six", "ctx.txt:7:seven foo", "ctx.txt-8-eight", "ctx.txt:9:nine foo", "ctx.txt-10-ten"].join("\n")
    )
    expect(await run(grep, { pattern: "foo\\(\\)|FooBar", path: "src", context: 1 }, f.context)).toBe(
      [
        "src/app.ts-1-import { foo } from './foo'",
        "src/app.ts:2:const value = foo()",
        "src/app.ts-3-export default value",
        "--",
        "src/foo.ts:1:export function foo() {",
        "src/foo.ts:2:  return 'FooBar'",
        "src/foo.ts-3-}"
      ].join("\n")
    )
  })

  maybe("filters files with a glob", async () => {
    const f = await makeFixture(project)
    expect(await run(grep, { pattern: "foo", glob: "*.md" }, f.context)).toBe("src/notes.md:1:foo in markdown")
    expect(await run(grep, { pattern: "foo", glob: "src/**/*.ts", filesOnly: true }, f.context)).toBe(["src/app.ts", "src/deep/x.ts", "src/foo.ts"].join("\n"))
    expect(await run(grep, { pattern: "foo", glob: "!src", filesOnly: true }, f.context)).toBe([".config/settings.json", "ctx.txt", "keep.log"].join("\n"))
    expect(await runError(grep, { pattern: "foo", glob: "{a,b" }, f.context)).toMatch(/^invalid glob \{a,b: /)
  })

  maybe("takes patterns and globs that start with a dash", async () => {
    const f = await makeFixture({ "-odd.txt": "--flag-like\n", "b.txt": "--flag-like\n" })
    expect(await run(grep, { pattern: "--flag", glob: "-odd*" }, f.context)).toBe("-odd.txt:1:--flag-like")
    expect(await run(grep, { pattern: "-f", path: "-odd.txt" }, f.context)).toBe("-odd.txt:1:--flag-like")
  })

  maybe("lists only file paths with filesOnly", async () => {
    const f = await makeFixture(project)
    expect(await run(grep, { pattern: "return", filesOnly: true }, f.context)).toBe("src/foo.ts")
  })

  maybe("searches a sub-directory with the workspace .gitignore in force", async () => {
    const f = await makeFixture({ ".gitignore": "*.gen.ts\n", "pkg/lib/a.ts": "needle\n", "pkg/lib/a.gen.ts": "needle\n" })
    expect(await run(grep, { pattern: "needle", path: "pkg/lib" }, f.context)).toBe("pkg/lib/a.ts:1:needle")
  })

  maybe("searches an explicitly named file even if it is ignored, refuses a binary one", async () => {
    const f = await makeFixture(project)
    expect(await run(grep, { pattern: "foo", path: "debug.log" }, f.context)).toBe("debug.log:1:foo in a log")
    expect(await run(grep, { pattern: "foo", path: "image.bin" }, f.context)).toBe("image.bin is a binary file; grep searches text files only.")
  })

  maybe("decodes BOM files and drops carriage returns", async () => {
    const f = await makeFixture({
      "bom8.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("needle one\n")]),
      "bom16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("needle two\n", "utf16le")]),
      "dos.txt": "needle three\r\nother\r\n"
    })
    expect(await run(grep, { pattern: "needle \\w+$" }, f.context)).toBe(["bom16.txt:1:needle two", "bom8.txt:1:needle one"].join("\n"))
    expect(await run(grep, { pattern: "needle" }, f.context)).toContain("dos.txt:1:needle three")
  })

  maybe("caps the output and spills the rest", async () => {
    const f = await makeFixture({ "many.txt": Array.from({ length: 800 }, (_, i) => `hit ${i}`).join("\n") })
    const text = await run(grep, { pattern: "hit" }, f.context)
    expect(text.split("\n")[499]).toBe("many.txt:500:hit 499")
    expect(text).toMatch(/\[300 more lines not shown \(limit 500 lines\); full output saved to .*grep-1\.txt — read it with offset=501\]$/)
  })

  maybe("fails on an invalid regex", async () => {
    const f = await makeFixture(project)
    expect(await runError(grep, { pattern: "(unclosed" }, f.context)).toMatch(/regex|regular expression/)
  })

  maybe("refuses paths outside the workspace", async () => {
    const f = await makeFixture(project)
    expect(await runError(grep, { pattern: "x", path: ".." }, f.context)).toMatch(/read refused/)
  })
})

/** Everything both implementations must agree on, in one tree. */
const parityTree: Tree = {
  ".gitignore": "*.log\n!keep.log\nbuild/\n/top-only.txt\ndocs/gen\nweird[ab].txt\n",
  ".ignore": "ignored-by-dot-ignore.txt\n",
  "top-only.txt": "needle top\n",
  "keep.log": "needle keep\n",
  "drop.log": "needle drop\n",
  "build/x.txt": "needle build\n",
  "a.txt": "needle a\n",
  "a-b.txt": "needle a-b\n",
  "a/x.txt": "needle a/x\n",
  "B.txt": "Needle upper\n",
  "weirda.txt": "needle weird\n",
  "weirdc.txt": "needle weird c\n",
  "ignored-by-dot-ignore.txt": "needle\n",
  ".hidden/h.txt": "needle hidden\n",
  ".git/config": "needle git\n",
  "sub/.git": "gitdir: elsewhere\n",
  "sub/.gitignore": "*.tmp\n!/special.tmp\n",
  "sub/top-only.txt": "needle sub top\n",
  "sub/x.tmp": "needle tmp\n",
  "sub/special.tmp": "needle special\n",
  "sub/deep/special.tmp": "needle deep special\n",
  "sub/deep/.rgignore": "!*.tmp\n",
  "sub/deep/other.tmp": "needle other tmp\n",
  "docs/gen/api.md": "needle api\n",
  "docs/guide.md": "needle guide\n",
  "nested/docs/gen/kept.md": "needle kept\n",
  "bin/blob.dat": Buffer.from("needle\0\u0001\u0002"),
  "bom8.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("needle bom\n")]),
  "u16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("needle utf16\n", "utf16le")]),
  "crlf.txt": "x\r\nneedle crlf\r\ny\r\n",
  "no-newline.txt": "first\nneedle last",
  "ctx.txt": Array.from({ length: 30 }, (_, i) => (i % 7 === 3 ? `needle ${i}` : `line ${i}`)).join("\n"),
  "ümlaut/é.txt": "needle é\n",
  "colon:name.txt": "needle colon\n",
  "pkg/.gitignore": "/lib/local.txt\n*.gen.ts\n",
  "pkg/lib/local.txt": "needle local\n",
  "pkg/lib/a.gen.ts": "needle gen\n",
  "pkg/lib/a.ts": "needle ts\n",
  "pkg/lib/inner/local.txt": "needle inner local\n"
}

const parityArgs: ReadonlyArray<Readonly<Record<string, unknown>>> = [
  { pattern: "needle" },
  { pattern: "NEEDLE", ignoreCase: true },
  { pattern: "needle", filesOnly: true },
  { pattern: "needle \\d+", context: 2 },
  { pattern: "needle", context: 1 },
  { pattern: "needle", path: "sub" },
  { pattern: "needle", path: "sub/deep" },
  { pattern: "needle", path: "pkg/lib" },
  { pattern: "needle", path: "pkg/lib", glob: "*.ts" },
  { pattern: "needle", glob: "*.log" },
  { pattern: "needle", glob: "!sub" },
  { pattern: "needle", glob: "**/*.{md,tmp}" },
  { pattern: "needle", glob: "sub/**" },
  { pattern: "needle", path: "crlf.txt", context: 1 },
  { pattern: "^needle last$" },
  { pattern: "" , path: "no-newline.txt" },
  { pattern: "é|colon" }
]

const outputOf = (f: Fixture, args: Readonly<Record<string, unknown>>, implementation: "rg" | "built-in"): Promise<string> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const prepared = yield* prepareGrep(args as { pattern: string }, f.context)
      if ("refused" in prepared) return prepared.refused
      const result =
        implementation === "rg" && rg !== undefined ? yield* Effect.orDie(grepWithRipgrep(rg, prepared.request)) : yield* runBuiltinGrep(prepared.request)
      return yield* grepOutput(f.context, prepared.request, prepared.display, result)
    })
  )

describe("grep parity", () => {
  it.skipIf(rg === undefined)(
    rg === undefined ? "rg and the built-in search print identical output (SKIPPED: rg is not on PATH)" : "rg and the built-in search print identical output",
    async () => {
      const f = await makeFixture(parityTree)
      for (const args of parityArgs) {
        const viaRg = await outputOf(f, args, "rg")
        const builtin = await outputOf(f, args, "built-in")
        expect({ args, output: builtin }).toEqual({ args, output: viaRg })
      }
      // a sanity check that the fixture exercises what it should
      const all = await outputOf(f, { pattern: "needle", filesOnly: true }, "built-in")
      expect(all.split("\n")).toEqual([
        ".hidden/h.txt",
        "a/x.txt",
        "a-b.txt",
        "a.txt",
        "bom8.txt",
        "colon:name.txt",
        "crlf.txt",
        "ctx.txt",
        "docs/guide.md",
        "keep.log",
        "nested/docs/gen/kept.md",
        "no-newline.txt",
        "pkg/lib/a.ts",
        "pkg/lib/inner/local.txt",
        "sub/deep/other.tmp",
        "sub/deep/special.tmp",
        "sub/special.tmp",
        "sub/top-only.txt",
        "u16.txt",
        "weirdc.txt",
        "ümlaut/é.txt"
      ])
    }
  )
})

describe("rg process", () => {
  it("uses a fixed argv: no config, hidden files, .gitignore without git, nothing above the root, .git excluded last", () => {
    const request = { pattern: "-x", ignoreCase: true, context: 2, filesOnly: false, glob: "*.ts", root: "/w", target: "/w/src", targetIsFile: false }
    expect(ripgrepArgs(request, "./src", "/tmp/ignore")).toEqual([
      "--no-config",
      "--color",
      "never",
      "--no-heading",
      "--with-filename",
      "--line-number",
      "--sort",
      "path",
      "--hidden",
      "--no-require-git",
      "--no-ignore-parent",
      "--no-ignore-global",
      "--no-ignore-exclude",
      "--no-messages",
      "--no-ignore-messages",
      "--ignore-case",
      "--null",
      "--context",
      "2",
      "--ignore-file=/tmp/ignore",
      "--glob=*.ts",
      "--glob=!.git",
      "--regexp=-x",
      "--",
      "./src"
    ])
  })

  it("is killed when the grep is interrupted", async () => {
    const f = await makeFixture({ "a.txt": "x\n" })
    const pidFile = path.join(f.base, "rg.pid")
    const fakeRg = path.join(f.base, "slow-rg")
    // A stand-in for a long rg run (a Node script, so it needs nothing on PATH): records its pid, then blocks.
    const script = `#!${process.execPath}\nrequire("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid))\nsetInterval(() => {}, 1000)\n`
    await fs.writeFile(fakeRg, script, { mode: 0o755 })
    const fiber = Effect.runFork(runEffect(makeGrepTool({ ripgrep: fakeRg }), { pattern: "x" }, f.context))
    let pid: number | undefined
    for (let i = 0; i < 200 && pid === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      const text = await fs.readFile(pidFile, "utf8").catch(() => "")
      if (text.trim() !== "") pid = Number(text.trim())
    }
    expect(pid).toBeTypeOf("number")
    const alive = (): boolean => {
      try {
        process.kill(pid ?? 0, 0)
        return true
      } catch {
        return false
      }
    }
    expect(alive()).toBe(true)
    await Effect.runPromise(Fiber.interrupt(fiber))
    for (let i = 0; i < 100 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(alive()).toBe(false)
  })

  it("falls back to the built-in search when rg cannot be started", async () => {
    const f = await makeFixture({ "a.txt": "needle\n" })
    expect(await run(makeGrepTool({ ripgrep: path.join(f.base, "no-such-rg") }), { pattern: "needle" }, f.context)).toBe("a.txt:1:needle")
  })

  it("removes its temporary ignore file", async () => {
    if (rg === undefined) return
    const f = await makeFixture({ ".gitignore": "x\n", "sub/a.txt": "needle\n" })
    const before = await fs.readdir(path.dirname(f.base))
    expect(await run(makeGrepTool({ ripgrep: rg }), { pattern: "needle", path: "sub" }, f.context)).toBe("sub/a.txt:1:needle")
    const after = await fs.readdir(path.dirname(f.base))
    expect(after.filter((name) => name.startsWith("crystal-rg-") && !before.includes(name))).toEqual([])
  })
})

describe("an ignore file that is a FIFO", () => {
  /**
   * rg opens every ignore file of the tree it walks, a FIFO too, and blocks there until a writer
   * comes. The guard writes after 60 s, past this test's 20 s: a grep that waits for rg fails.
   */
  const fifoTree = async () => {
    const f = await makeFixture({ ".gitignore": "*.log\n", "a.txt": "needle a\n", "x.log": "needle x\n", "sub/b.txt": "needle b\n", "sub/deep/c.txt": "needle c\n" })
    const fifo = path.join(f.workspace, "sub", ".gitignore")
    makeFifo(fifo)
    guards.push(unblockFifoAfter(fifo, 60))
    return f
  }

  it.each(implementations)("%s: the search completes, the FIFO read as absent", async (_name, tool) => {
    if (tool === undefined) return
    const f = await fifoTree()
    expect(await run(tool, { pattern: "needle" }, f.context)).toBe(["a.txt:1:needle a", "sub/b.txt:1:needle b", "sub/deep/c.txt:1:needle c"].join("\n"))
    // Below the FIFO: the ignore files above the target are Crystal's to read, not rg's.
    expect(await run(tool, { pattern: "needle", path: "sub/deep" }, f.context)).toBe("sub/deep/c.txt:1:needle c")
  }, 20_000)
})
