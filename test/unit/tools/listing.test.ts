import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { splitGlobPattern } from "../../../src/tools/glob-pattern.ts"
import { builtinTool, cleanupFixtures, makeFixture, run, runError, type Tree } from "./support.ts"

const listTool = builtinTool("list")
const treeTool = builtinTool("tree")
const globTool = builtinTool("glob")

afterEach(cleanupFixtures)

const many = (dir: string, count: number): Tree =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`${dir}/f${String(i).padStart(4, "0")}.txt`, ""]))

describe("list", () => {
  it("lists one directory: directories first with /, then files, sorted; links shown with their target", async () => {
    const f = await makeFixture({ "b.txt": "", "a.txt": "", "zdir/x": "", "adir/": "", ".hidden": "", ".git/config": "", "node_modules/x": "", ".gitignore": "node_modules/\n" })
    await fs.symlink("adir", path.join(f.workspace, "dirlink"))
    await fs.symlink("missing-target", path.join(f.workspace, "dangling"))
    expect(await run(listTool, {}, f.context)).toBe(
      [".git/", "adir/", "node_modules/", "zdir/", ".gitignore", ".hidden", "a.txt", "b.txt", "dangling -> missing-target", "dirlink/ -> adir"].join("\n")
    )
    expect(await run(listTool, { path: "zdir" }, f.context)).toBe("x")
    expect(await run(listTool, { path: "adir" }, f.context)).toBe("adir is empty.")
  })

  it("caps long listings and spills the rest", async () => {
    const f = await makeFixture(many("big", 520))
    const text = await run(listTool, { path: "big" }, f.context)
    const [file, saved] = [...f.spilled.entries()][0] ?? []
    expect(text.split("\n").slice(0, 500).at(-1)).toBe("f0499.txt")
    expect(text).toContain(`[20 more entries not shown (limit 500 entries); full output saved to ${file} — read it with offset=501]`)
    expect(saved?.split("\n")).toHaveLength(521)
  })

  it("errors on a file, a missing directory and outside paths", async () => {
    const f = await makeFixture({ "src/a.ts": "" })
    expect(await runError(listTool, { path: "src/a.ts" }, f.context)).toBe("src/a.ts is a file, not a directory; use read to see its contents.")
    expect(await runError(listTool, { path: "scr" }, f.context)).toBe("Directory not found: scr. Did you mean src?")
    expect(await runError(listTool, { path: "/" }, f.context)).toMatch(/read refused/)
  })
})

describe("tree", () => {
  const files: Tree = {
    ".gitignore": "dist/\n*.log\n",
    "README.md": "",
    "dist/bundle.js": "",
    "debug.log": "",
    ".git/HEAD": "",
    "src/main.ts": "",
    "src/util/strings.ts": "",
    "src/util/deep/deeper/x.ts": "",
    "src/util/empty/": "",
    "src/util/onlyignored/a.log": "",
    "docs/guide.md": ""
  }

  it("prints an indented tree, directories first, skipping .git and ignored paths", async () => {
    const f = await makeFixture(files)
    expect(await run(treeTool, {}, f.context)).toBe(
      ["./", "  docs/", "    guide.md", "  src/", "    util/", "      deep/ …", "      empty/", "      onlyignored/", "      strings.ts", "    main.ts", "  .gitignore", "  README.md"].join("\n")
    )
  })

  it("honours depth and a sub-directory path (with the root .gitignore)", async () => {
    const f = await makeFixture(files)
    expect(await run(treeTool, { depth: 1 }, f.context)).toBe(["./", "  docs/ …", "  src/ …", "  .gitignore", "  README.md"].join("\n"))
    expect(await run(treeTool, { path: "src/util", depth: 5 }, f.context)).toBe(
      ["src/util/", "  deep/", "    deeper/", "      x.ts", "  empty/", "  onlyignored/", "  strings.ts"].join("\n")
    )
  })

  it("does not descend into symbolic links", async () => {
    const f = await makeFixture({ "a/x.txt": "" }, { "secret/s.txt": "" })
    await fs.symlink(path.join(f.outside, "secret"), path.join(f.workspace, "link"))
    expect(await run(treeTool, {}, f.context)).toBe(["./", "  a/", "    x.txt", `  link/ -> ${path.join(f.outside, "secret")}`].join("\n"))
  })

  it("caps the output with the number of omitted entries", async () => {
    const f = await makeFixture(many("d", 600))
    const text = await run(treeTool, {}, f.context)
    expect(text).toMatch(/\n\n\[102 more entries not shown \(limit 500 entries\); full output saved to .*tree-1\.txt — read it with offset=501\]$/)
    expect([...f.spilled.values()][0]?.split("\n")).toHaveLength(603)
  })

  it("errors on a file", async () => {
    const f = await makeFixture({ "a.txt": "" })
    expect(await runError(treeTool, { path: "a.txt" }, f.context)).toBe("a.txt is a file, not a directory; use read to see its contents.")
  })
})

describe("glob", () => {
  const files: Tree = {
    ".gitignore": "generated/\nskip.ts\n",
    "index.ts": "",
    "skip.ts": "",
    "src/a.ts": "",
    "src/b.tsx": "",
    "src/c.js": "",
    "src/deep/d.ts": "",
    "src/.hidden.ts": "",
    "generated/g.ts": "",
    ".git/x.ts": "",
    "lib/e.ts": ""
  }

  it("matches ** at any depth, sorted by path, relative to the workspace", async () => {
    const f = await makeFixture(files)
    expect(await run(globTool, { pattern: "**/*.ts" }, f.context)).toBe(["index.ts", "lib/e.ts", "src/.hidden.ts", "src/a.ts", "src/deep/d.ts"].join("\n"))
  })

  it("keeps * within one directory and supports alternatives", async () => {
    const f = await makeFixture(files)
    expect(await run(globTool, { pattern: "*.ts" }, f.context)).toBe("index.ts")
    expect(await run(globTool, { pattern: "src/*.{ts,tsx}" }, f.context)).toBe(["src/.hidden.ts", "src/a.ts", "src/b.tsx"].join("\n"))
    expect(await run(globTool, { pattern: "{lib,src}/**/*.ts" }, f.context)).toBe(["lib/e.ts", "src/.hidden.ts", "src/a.ts", "src/deep/d.ts"].join("\n"))
  })

  it("matches relative to path and answers literal paths", async () => {
    const f = await makeFixture(files)
    expect(await run(globTool, { pattern: "**/*.ts", path: "src" }, f.context)).toBe(["src/.hidden.ts", "src/a.ts", "src/deep/d.ts"].join("\n"))
    expect(await run(globTool, { pattern: "src/a.ts" }, f.context)).toBe("src/a.ts")
    expect(await runError(globTool, { pattern: "src" }, f.context)).toBe("src is a directory; match files under it with a pattern such as src/**/*")
    expect(await run(globTool, { pattern: "**/*.py" }, f.context)).toBe("No files match **/*.py in . (.git and ignored files are skipped).")
  })

  it("respects the workspace .gitignore when searching a sub-directory", async () => {
    const f = await makeFixture({ ".gitignore": "*.gen.ts\n", "pkg/a.ts": "", "pkg/a.gen.ts": "" })
    expect(await run(globTool, { pattern: "**/*", path: "pkg" }, f.context)).toBe("pkg/a.ts")
  })

  it("caps many matches and spills the rest", async () => {
    const f = await makeFixture(many("m", 700))
    const text = await run(globTool, { pattern: "**/*.txt" }, f.context)
    expect(text).toContain("[200 more paths not shown (limit 500 paths); full output saved to ")
  })

  it("refuses patterns that leave the workspace", async () => {
    const f = await makeFixture(files, { "o.ts": "" })
    expect(await runError(globTool, { pattern: "../outside/*.ts" }, f.context)).toMatch(/read refused/)
    expect(await runError(globTool, { pattern: "../x/*.ts" }, f.context)).toMatch(/read refused/)
    expect(await runError(globTool, { pattern: "**/*.ts", path: ".." }, f.context)).toMatch(/read refused/)
    expect(await runError(globTool, { pattern: "/*.ts" }, f.context)).toMatch(/read refused/)
    expect(await runError(globTool, { pattern: `${f.outside}/*.ts` }, f.context)).toMatch(/read refused/)
  })

  it("follows globset rules: ** spans directories, * and ? and [..] stay within one, dotfiles match", async () => {
    const f = await makeFixture(files)
    expect(await run(globTool, { pattern: "src/**/*.{ts,tsx}" }, f.context)).toBe(["src/.hidden.ts", "src/a.ts", "src/b.tsx", "src/deep/d.ts"].join("\n"))
    expect(await run(globTool, { pattern: "*.md" }, f.context)).toBe("No files match *.md in . (.git and ignored files are skipped).")
    expect(await run(globTool, { pattern: "*" }, f.context)).toBe([".gitignore", "index.ts"].join("\n"))
    expect(await run(globTool, { pattern: "src/**" }, f.context)).toBe(["src/.hidden.ts", "src/a.ts", "src/b.tsx", "src/c.js", "src/deep/d.ts"].join("\n"))
    expect(await run(globTool, { pattern: "src/?.ts" }, f.context)).toBe("src/a.ts")
    expect(await run(globTool, { pattern: "src/[ab].*" }, f.context)).toBe(["src/a.ts", "src/b.tsx"].join("\n"))
    expect(await run(globTool, { pattern: "*/*.ts" }, f.context)).toBe(["lib/e.ts", "src/.hidden.ts", "src/a.ts"].join("\n"))
    expect(await run(globTool, { pattern: "./src/*.js" }, f.context)).toBe("src/c.js")
  })

  it("matches *.md at the top level only", async () => {
    const f = await makeFixture({ "README.md": "", "docs/guide.md": "", "docs/api/ref.md": "" })
    expect(await run(globTool, { pattern: "*.md" }, f.context)).toBe("README.md")
    expect(await run(globTool, { pattern: "**/*.md" }, f.context)).toBe(["README.md", "docs/api/ref.md", "docs/guide.md"].join("\n"))
    expect(await run(globTool, { pattern: "*.md", path: "docs" }, f.context)).toBe("docs/guide.md")
  })

  it("takes an absolute pattern inside the workspace and answers with workspace-relative paths", async () => {
    const f = await makeFixture(files)
    expect(await run(globTool, { pattern: `${f.workspace}/src/*.ts` }, f.context)).toBe(["src/.hidden.ts", "src/a.ts"].join("\n"))
    expect(await run(globTool, { pattern: `${f.workspace}/**/d.ts`, path: "lib" }, f.context)).toBe("src/deep/d.ts")
    expect(await run(globTool, { pattern: `${f.workspace}/src/a.ts` }, f.context)).toBe("src/a.ts")
  })

  it("answers a pattern without glob characters as a path", async () => {
    const f = await makeFixture(files)
    expect(await run(globTool, { pattern: "src/deep/d.ts" }, f.context)).toBe("src/deep/d.ts")
    expect(await run(globTool, { pattern: "a.ts", path: "src" }, f.context)).toBe("src/a.ts")
    expect(await run(globTool, { pattern: "src/missing.ts" }, f.context)).toBe("No files match src/missing.ts in src/missing.ts (.git and ignored files are skipped).")
    expect(await runError(globTool, { pattern: "src/deep/" }, f.context)).toBe("src/deep is a directory; match files under it with a pattern such as src/deep/**/*")
  })

  it("treats [..] as a class and a backslash as an escape", async () => {
    const f = await makeFixture({ "notes/a[1].md": "", "notes/a1.md": "" })
    expect(await run(globTool, { pattern: "notes/a[1].md" }, f.context)).toBe("notes/a1.md")
    expect(await run(globTool, { pattern: "notes/a\\[1\\].md" }, f.context)).toBe("notes/a[1].md")
  })

  it("reports an invalid glob", async () => {
    const f = await makeFixture(files)
    expect(await runError(globTool, { pattern: "src/{a,b" }, f.context)).toMatch(/^invalid glob src\/\{a,b: .*unclosed alternate group/)
    expect(await runError(globTool, { pattern: " " }, f.context)).toBe("pattern is empty; give a glob such as **/*.ts")
  })
})

describe("splitGlobPattern", () => {
  it("puts the segments before the first glob segment in the base", () => {
    expect(splitGlobPattern("**/*.ts")).toEqual({ base: "", glob: "**/*.ts" })
    expect(splitGlobPattern("*.md")).toEqual({ base: "", glob: "*.md" })
    expect(splitGlobPattern("src/**/*.{ts,tsx}")).toEqual({ base: "src", glob: "**/*.{ts,tsx}" })
    expect(splitGlobPattern("src/lib/?.ts")).toEqual({ base: "src/lib", glob: "?.ts" })
    expect(splitGlobPattern("src/[ab]/x.ts")).toEqual({ base: "src", glob: "[ab]/x.ts" })
    expect(splitGlobPattern("{lib,src}/*.ts")).toEqual({ base: "", glob: "{lib,src}/*.ts" })
    expect(splitGlobPattern("src/a*/b/c.ts")).toEqual({ base: "src", glob: "a*/b/c.ts" })
    expect(splitGlobPattern("./src/*.ts")).toEqual({ base: "./src", glob: "*.ts" })
  })

  it("keeps ../ and absolute bases as written", () => {
    expect(splitGlobPattern("../x/*.ts")).toEqual({ base: "../x", glob: "*.ts" })
    expect(splitGlobPattern("../../**")).toEqual({ base: "../..", glob: "**" })
    expect(splitGlobPattern("/abs/dir/**/*.ts")).toEqual({ base: "/abs/dir", glob: "**/*.ts" })
    expect(splitGlobPattern("/*.ts")).toEqual({ base: "/", glob: "*.ts" })
  })

  it("gives the whole pattern as the base when nothing is a glob", () => {
    expect(splitGlobPattern("src/a.ts")).toEqual({ base: "src/a.ts", glob: undefined })
    expect(splitGlobPattern("/abs/file.txt")).toEqual({ base: "/abs/file.txt", glob: undefined })
    expect(splitGlobPattern("../x")).toEqual({ base: "../x", glob: undefined })
    expect(splitGlobPattern("a]b/c}d,e")).toEqual({ base: "a]b/c}d,e", glob: undefined })
  })

  it("leaves a backslash escape to the glob compiler", () => {
    expect(splitGlobPattern("docs/a\\*b.md")).toEqual({ base: "docs", glob: "a\\*b.md" })
  })
})
