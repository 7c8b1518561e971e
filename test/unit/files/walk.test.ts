import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { GlobFilter } from "../../../src/files/walk/gitignore.ts"
import { compareNames, firstRefusedIgnoreFile, walk, WalkAborted, WalkDir } from "../../../src/files/walk/walk.ts"
import { makeFifo, unblockFifoAfter, type FifoGuard } from "../../support/fifo.ts"
import { cleanupFixtures, makeFixture } from "../tools/support.ts"

const guards: Array<FifoGuard> = []
afterEach(async () => {
  for (const guard of guards.splice(0)) guard.stop()
  await cleanupFixtures()
})

const files = async (root: string, start: string = root, filter?: GlobFilter): Promise<Array<string>> => {
  const out: Array<string> = []
  for await (const entry of walk(await WalkDir.open(root, start, { filter }))) {
    if (entry.kind !== "dir") out.push(entry.kind === "file" ? entry.relative : `${entry.relative}@`)
  }
  return out
}

describe("walk", () => {
  it("honours .gitignore at every level: nested, negation, directory-only, anchored", async () => {
    const f = await makeFixture({
      ".gitignore": "*.log\n!keep.log\nbuild/\n/root-only.txt\ndocs/gen\n",
      "a.log": "",
      "keep.log": "",
      "root-only.txt": "",
      "build/out.js": "",
      "src/build": "a file named build is not a directory",
      "src/root-only.txt": "",
      "src/app.ts": "",
      "src/x.log": "",
      "src/.gitignore": "*.tmp\n!/special.tmp\n",
      "src/cache.tmp": "",
      "src/special.tmp": "",
      "src/deep/special.tmp": "",
      "other/cache.tmp": "",
      "docs/gen/api.md": "",
      "docs/guide.md": "",
      "sub/docs/gen/kept.md": ""
    })
    expect(await files(f.workspace)).toEqual([
      ".gitignore",
      "docs/guide.md",
      "keep.log",
      "other/cache.tmp",
      "src/.gitignore",
      "src/app.ts",
      "src/build",
      "src/root-only.txt",
      "src/special.tmp",
      "sub/docs/gen/kept.md"
    ])
  })

  it("a walk of a sub-directory still honours the ignore files above it inside the root", async () => {
    const f = await makeFixture({
      ".gitignore": "*.gen.ts\n/pkg/lib/skip/\n",
      "pkg/.gitignore": "/lib/local.txt\n",
      "pkg/lib/a.gen.ts": "",
      "pkg/lib/a.ts": "",
      "pkg/lib/local.txt": "",
      "pkg/lib/skip/x.ts": "",
      "pkg/lib/inner/local.txt": ""
    })
    expect(await files(f.workspace, path.join(f.workspace, "pkg", "lib"))).toEqual(["pkg/lib/a.ts", "pkg/lib/inner/local.txt"])
  })

  it("lets a deeper file re-include a directory a higher one ignores", async () => {
    const f = await makeFixture({
      ".gitignore": "vendor/\n",
      "vendor/y.js": "",
      "a/.gitignore": "!vendor/\n",
      "a/vendor/x.js": ""
    })
    expect(await files(f.workspace)).toEqual([".gitignore", "a/.gitignore", "a/vendor/x.js"])
  })

  it("gives .rgignore over .ignore over .gitignore, and reads nothing above the root", async () => {
    const f = await makeFixture({
      "ws2/.gitignore": "a.txt\nb.txt\nc.txt\n",
      "ws2/sub/.ignore": "!a.txt\n",
      "ws2/sub/.rgignore": "!b.txt\n",
      "ws2/sub/a.txt": "",
      "ws2/sub/b.txt": "",
      "ws2/sub/c.txt": "",
      ".gitignore": "*\n"
    })
    const root = path.join(f.workspace, "ws2")
    expect(await files(root)).toEqual([".gitignore", "sub/.ignore", "sub/.rgignore", "sub/a.txt", "sub/b.txt"])
  })

  it("includes hidden files, skips .git directories and files", async () => {
    const f = await makeFixture({ ".env": "", ".github/ci.yml": "", ".git/config": "", "mod/.git": "gitdir: x", "mod/a": "" })
    expect(await files(f.workspace)).toEqual([".env", ".github/ci.yml", "mod/a"])
  })

  it("reports symbolic links without following them", async () => {
    const f = await makeFixture({ "real/a.txt": "" }, { "secret/s.txt": "" })
    await fs.symlink(path.join(f.outside, "secret"), path.join(f.workspace, "out-link"))
    await fs.symlink(path.join(f.workspace, "real"), path.join(f.workspace, "in-link"))
    await fs.symlink(path.join(f.workspace, "real", "a.txt"), path.join(f.workspace, "file-link"))
    expect(await files(f.workspace)).toEqual(["file-link@", "in-link@", "out-link@", "real/a.txt"])
  })

  it("lists the same entries synchronously (entriesSync) as asynchronously", async () => {
    const f = await makeFixture({
      ".gitignore": "*.log\n!keep.log\nbuild/\n",
      ".rgignore": "secret.txt\n",
      "a.log": "",
      "keep.log": "",
      "secret.txt": "",
      "build/out.js": "",
      "src/.ignore": "*.tmp\n",
      "src/x.tmp": "",
      "src/B.ts": "",
      "src/a.ts": "",
      ".git/HEAD": ""
    })
    await fs.symlink("src/a.ts", path.join(f.workspace, "link.ts"))
    const visit = async (dir: WalkDir, sync: boolean): Promise<Array<string>> => {
      const out: Array<string> = []
      for (const entry of sync ? dir.entriesSync() : await dir.entries()) {
        out.push(`${entry.relative}:${entry.kind}:${entry.path}`)
        if (entry.kind === "dir") out.push(...(await visit(dir.child(entry), sync)))
      }
      return out
    }
    const listed = await visit(await WalkDir.open(f.workspace, f.workspace), false)
    expect(listed).toContain(`link.ts:symlink:${path.join(f.workspace, "link.ts")}`)
    expect(listed.map((line) => line.split(":")[0])).toEqual([".gitignore", ".rgignore", "keep.log", "link.ts", "src", "src/.ignore", "src/B.ts", "src/a.ts"])
    expect(await visit(await WalkDir.open(f.workspace, f.workspace), true)).toEqual(listed)
  })

  it("sorts names by byte order within each directory (rg --sort path)", async () => {
    const f = await makeFixture({ "a/x": "", "a-b.txt": "", "a.txt": "", "B": "", "é": "", "z": "" })
    expect(await files(f.workspace)).toEqual(["B", "a/x", "a-b.txt", "a.txt", "z", "é"])
    expect(["b", "a", "😀", "\uffff"].sort(compareNames)).toEqual(["a", "b", "\uffff", "😀"])
  })

  it("applies a glob filter like rg --glob", async () => {
    const f = await makeFixture({ ".gitignore": "ignored.ts\nbuild/\n", "a.ts": "", "b.js": "", "ignored.ts": "", "build/c.ts": "", "sub/d.ts": "" })
    // a selecting glob admits ignored files but does not open ignored directories
    expect(await files(f.workspace, f.workspace, GlobFilter.make("*.ts"))).toEqual(["a.ts", "ignored.ts", "sub/d.ts"])
    expect(await files(f.workspace, f.workspace, GlobFilter.make("!sub"))).toEqual([".gitignore", "a.ts", "b.js"])
  })

  it("stops when aborted", async () => {
    const f = await makeFixture({ "a/b.txt": "" })
    const controller = new AbortController()
    controller.abort()
    const start = await WalkDir.open(f.workspace, f.workspace, { signal: controller.signal })
    await expect(start.entries()).rejects.toBeInstanceOf(WalkAborted)
  })

  describe("ignore files that are not regular files", () => {
    /** `sub/.gitignore` a FIFO (a guard unblocks a reader after 5 s: the old reads then got "" and the test failed on what follows). */
    const fifoTree = async () => {
      const f = await makeFixture({ ".gitignore": "*.log\n", "a.txt": "", "x.log": "", "sub/b.txt": "", "sub/y.log": "", "sub/deep/c.txt": "" })
      const fifo = path.join(f.workspace, "sub", ".gitignore")
      makeFifo(fifo)
      guards.push(unblockFifoAfter(fifo, 5))
      return { f, fifo }
    }
    const expected = [".gitignore", "a.txt", "sub/b.txt", "sub/deep/c.txt"]
    const fifoReason = "is a FIFO (named pipe), not a regular file"

    it("a FIFO .gitignore is read as absent, never opened, and named among the refused (async walk)", async () => {
      const { f, fifo } = await fifoTree()
      const start = await WalkDir.open(f.workspace, f.workspace)
      const out: Array<string> = []
      for await (const entry of walk(start)) if (entry.kind === "file") out.push(entry.relative)
      expect(out).toEqual(expected)
      expect(start.refusedIgnoreFiles).toEqual([{ file: fifo, reason: fifoReason }])
    })

    it("the same with synchronous listings (search's cold build, the @ completion)", async () => {
      const { f, fifo } = await fifoTree()
      const start = WalkDir.openRoot(f.workspace)
      const out: Array<string> = []
      const queue = [start]
      while (queue.length > 0) {
        const dir = queue.shift() as WalkDir
        for (const entry of dir.entriesSync()) {
          if (entry.kind === "dir") queue.push(dir.child(entry))
          else if (entry.kind === "file") out.push(entry.relative)
        }
      }
      expect(out.sort()).toEqual(expected)
      expect(start.refusedIgnoreFiles).toEqual([{ file: fifo, reason: fifoReason }])
    })

    it("a FIFO among the ignore files above the start directory (read when the walk opens)", async () => {
      const { f, fifo } = await fifoTree()
      const start = await WalkDir.open(f.workspace, path.join(f.workspace, "sub", "deep"))
      expect((await start.entries()).map((entry) => entry.relative)).toEqual(["sub/deep/c.txt"])
      expect(start.refusedIgnoreFiles).toEqual([{ file: fifo, reason: fifoReason }])
    })

    it("firstRefusedIgnoreFile finds it below the start; undefined in a tree without one, or with one only in an ignored directory", async () => {
      const { f, fifo } = await fifoTree()
      expect(await firstRefusedIgnoreFile(f.workspace, f.workspace)).toEqual({ file: fifo, reason: fifoReason })
      const clean = await makeFixture({ ".gitignore": "*.log\nvendor/\n", "sub/.ignore": "x\n", "sub/a.txt": "", "vendor/pkg/a.txt": "" })
      expect(await firstRefusedIgnoreFile(clean.workspace, clean.workspace)).toBeUndefined()
      // rg does not enter an ignored directory either, so it would never open this one.
      const ignored = path.join(clean.workspace, "vendor", "pkg", ".gitignore")
      makeFifo(ignored)
      guards.push(unblockFifoAfter(ignored, 5))
      expect(await firstRefusedIgnoreFile(clean.workspace, clean.workspace)).toBeUndefined()
      expect(await firstRefusedIgnoreFile(clean.workspace, path.join(clean.workspace, "vendor"))).toEqual({ file: ignored, reason: fifoReason })
    })

    it("a link to a device (/dev/zero, which never ends) is refused too; a link to a regular ignore file is followed", async () => {
      const f = await makeFixture({ "rules": "*.log\n", "a.txt": "", "x.log": "", "sub/y.log": "", "dev/z.log": "" })
      await fs.symlink(path.join(f.workspace, "rules"), path.join(f.workspace, "sub", ".ignore"))
      await fs.symlink("/dev/zero", path.join(f.workspace, "dev", ".rgignore"))
      const start = await WalkDir.open(f.workspace, f.workspace)
      const out: Array<string> = []
      for await (const entry of walk(start)) if (entry.kind === "file") out.push(entry.relative)
      expect(out).toEqual(["a.txt", "dev/z.log", "rules", "x.log"])
      expect(start.refusedIgnoreFiles).toEqual([{ file: path.join(f.workspace, "dev", ".rgignore"), reason: "is a device, not a regular file" }])
    })
  })
})
